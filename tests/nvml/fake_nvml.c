/* fake_nvml.c -- a stand-in libnvidia-ml.so.1 for the test suite.
 *
 * It exports the NVML functions the agent resolves and answers them from
 * recorded `nvidia-smi -q -x` files, so the NVML collector is exercised on real
 * GPU data on machines without a GPU.  "N/A" and missing elements answer
 * NVML_ERROR_NOT_SUPPORTED, as NVML does for a figure a GPU does not offer.
 *
 * Environment:
 *   PNA_FAKE_NVML_XML        colon-separated XML files; every <gpu> in them is
 *                            one device, in the order given (NVML index order)
 *   PNA_FAKE_NVML_INIT_RC    nvmlInit_v2 returns this code instead of success
 *   PNA_FAKE_NVML_HANG       name of an exported function that hangs ...
 *   PNA_FAKE_NVML_HANG_FILE  ... only while this file exists (else forever)
 *   PNA_FAKE_NVML_CTL        control file, re-read at each nvmlDeviceGetCount_v2
 *                            and event wait; lines:
 *                              lost BUSID          calls on it answer GPU_IS_LOST
 *                              gone BUSID          it is no longer enumerated
 *                              set BUSID temp|power_mw|energy_mj VALUE
 *                              xid BUSID CODE      one XID event (each line once)
 *                              set BUSID recovery N  NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
 *                              set BUSID ecc_volatile N  volatile uncorrected ECC errors
 *                              linkdown BUSID LINK   the link answers NVML_FEATURE_DISABLED
 *                              linkerr BUSID LINK REPLAY RECOVERY CRC_FLIT CRC_DATA
 *                              linktype BUSID LINK gpu|switch|cpu
 *                              linkversion BUSID LINK N
 *                              linkremote BUSID LINK ADDR  the remote end's PCI address
 *                              linksymbol BUSID LINK N     NVLink 5 symbol errors
 *                              linkber BUSID LINK N        NVLink 5 effective BER, NVML-encoded
 *                              violation BUSID POLICY NS   nvmlDeviceGetViolationStatus
 *                              procutil BUSID PID SM MEM   a process utilisation sample
 *                              gpm BUSID METRIC_ID VALUE   what nvmlGpmMetricsGet answers
 *                              miggpm BUSID GI METRIC_ID VALUE  the same, for the samples
 *                                                  nvmlGpmMigSampleGet takes of GPU instance GI
 *   PNA_FAKE_NVML_NVLINK     colon-separated `nvidia-smi nvlink` outputs (-s,
 *                            -R, -gt d, -gt r): "GPU n:" is the n-th device
 *                            (NVML index order), each "Link k:" line one link;
 *                            links exist only where these files list them
 *   PNA_FAKE_NVML_MIG        colon-separated MIG outputs of nvidia-smi: the
 *                            plain table's "MIG devices:" rows (GPU, GI, CI,
 *                            MIG dev, memory used/total, SM count), `-L`
 *                            ("MIG <profile> Device k: (UUID: MIG-...)") and
 *                            `mig -lgi` (profile and profile id per GI); GPU n
 *                            is the n-th device, MIG dev k its MIG device
 *                            handle k.  A device with MIG rows is in MIG mode.
 *   BUSID is written as in the XML (00000000:00:06.0).
 *
 * Time held back (nvmlDeviceGetViolationStatus, the clock-event fields), the
 * recovery action and the fabric state answer from the XML's
 * clocks_event_reasons_counters, gpu_recovery_action and fabric; link error counters, link versions, remote kinds
 * and GPM metrics have no recorded source and answer only what the control
 * file sets (see tests/integration/gpu_depth.sh for the values used).
 *
 * MIG: the GPU instance profiles (nvmlDeviceGetGpuInstanceProfileInfoV) are
 * those the device's MIG rows name, each with the slices its name says and
 * the memory and SMs of its first row; a profile id -lgi does not give is
 * numbered 100 + k (the agent only matches ids, it serves none).  A compute
 * instance fills its GPU instance.  GPM per GPU instance comes from the
 * control file only (tests/integration/gpu_mig.sh). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

#include "sources/gpu/nvml_api.h"

/* The exported functions, each declared with the pointer type the agent
 * resolves it as (sources/gpu/nvml_api.h): a signature that differs from what
 * the agent calls does not compile. */
#define PROTO(type, name) __attribute__((visibility("default"))) extern __typeof__(*(type)0) name
PROTO(nvmlInit_v2_fn, nvmlInit_v2);
PROTO(nvmlShutdown_fn, nvmlShutdown);
PROTO(nvmlErrorString_fn, nvmlErrorString);
PROTO(nvmlSystemGetDriverVersion_fn, nvmlSystemGetDriverVersion);
PROTO(nvmlSystemGetCudaDriverVersion_v2_fn, nvmlSystemGetCudaDriverVersion_v2);
PROTO(nvmlDeviceGetCount_v2_fn, nvmlDeviceGetCount_v2);
PROTO(nvmlDeviceGetHandleByIndex_v2_fn, nvmlDeviceGetHandleByIndex_v2);
PROTO(nvmlDeviceGetPciInfo_v3_fn, nvmlDeviceGetPciInfo_v3);
PROTO(nvmlDeviceGetStr_fn, nvmlDeviceGetName);
PROTO(nvmlDeviceGetStr_fn, nvmlDeviceGetUUID);
PROTO(nvmlDeviceGetStr_fn, nvmlDeviceGetSerial);
PROTO(nvmlDeviceGetStr_fn, nvmlDeviceGetVbiosVersion);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetMinorNumber);
PROTO(nvmlDeviceGetUtilizationRates_fn, nvmlDeviceGetUtilizationRates);
PROTO(nvmlDeviceGetMemoryInfo_fn, nvmlDeviceGetMemoryInfo);
PROTO(nvmlDeviceGetMemoryInfo_v2_fn, nvmlDeviceGetMemoryInfo_v2);
PROTO(nvmlDeviceGetTemperature_fn, nvmlDeviceGetTemperature);
PROTO(nvmlDeviceGetTemperatureThreshold_fn, nvmlDeviceGetTemperatureThreshold);
PROTO(nvmlDeviceGetFieldValues_fn, nvmlDeviceGetFieldValues);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetPowerUsage);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetEnforcedPowerLimit);
PROTO(nvmlDeviceGetULL_fn, nvmlDeviceGetTotalEnergyConsumption);
PROTO(nvmlDeviceGetClockInfo_fn, nvmlDeviceGetClockInfo);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetFanSpeed);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetCurrPcieLinkGeneration);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetCurrPcieLinkWidth);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetMaxPcieLinkGeneration);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetMaxPcieLinkWidth);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetPcieReplayCounter);
PROTO(nvmlDeviceGetPerformanceState_fn, nvmlDeviceGetPerformanceState);
PROTO(nvmlDeviceGetTotalEccErrors_fn, nvmlDeviceGetTotalEccErrors);
PROTO(nvmlDeviceGetRetiredPages_fn, nvmlDeviceGetRetiredPages);
PROTO(nvmlDeviceGetRemappedRows_fn, nvmlDeviceGetRemappedRows);
PROTO(nvmlDeviceGetULL_fn, nvmlDeviceGetCurrentClocksThrottleReasons);
PROTO(nvmlDeviceGetRunningProcesses_fn, nvmlDeviceGetComputeRunningProcesses_v3);
PROTO(nvmlDeviceGetRunningProcesses_fn, nvmlDeviceGetGraphicsRunningProcesses_v3);
PROTO(nvmlDeviceGetMigMode_fn, nvmlDeviceGetMigMode);
PROTO(nvmlDeviceGetViolationStatus_fn, nvmlDeviceGetViolationStatus);
PROTO(nvmlDeviceGetProcessUtilization_fn, nvmlDeviceGetProcessUtilization);
PROTO(nvmlDeviceGetNvLinkState_fn, nvmlDeviceGetNvLinkState);
PROTO(nvmlDeviceGetNvLinkVersion_fn, nvmlDeviceGetNvLinkVersion);
PROTO(nvmlDeviceGetNvLinkRemotePciInfo_v2_fn, nvmlDeviceGetNvLinkRemotePciInfo_v2);
PROTO(nvmlDeviceGetNvLinkRemoteDeviceType_fn, nvmlDeviceGetNvLinkRemoteDeviceType);
PROTO(nvmlDeviceGetNvLinkErrorCounter_fn, nvmlDeviceGetNvLinkErrorCounter);
PROTO(nvmlDeviceGetGpuFabricInfoV_fn, nvmlDeviceGetGpuFabricInfoV);
PROTO(nvmlGpmQueryDeviceSupport_fn, nvmlGpmQueryDeviceSupport);
PROTO(nvmlGpmSampleAlloc_fn, nvmlGpmSampleAlloc);
PROTO(nvmlGpmSampleFree_fn, nvmlGpmSampleFree);
PROTO(nvmlGpmSampleGet_fn, nvmlGpmSampleGet);
PROTO(nvmlGpmMetricsGet_fn, nvmlGpmMetricsGet);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetMaxMigDeviceCount);
PROTO(nvmlDeviceGetMigDeviceHandleByIndex_fn, nvmlDeviceGetMigDeviceHandleByIndex);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetGpuInstanceId);
PROTO(nvmlDeviceGetUInt_fn, nvmlDeviceGetComputeInstanceId);
PROTO(nvmlDeviceGetAttributes_v2_fn, nvmlDeviceGetAttributes_v2);
PROTO(nvmlDeviceGetGpuInstanceById_fn, nvmlDeviceGetGpuInstanceById);
PROTO(nvmlGpuInstanceGetInfo_fn, nvmlGpuInstanceGetInfo);
PROTO(nvmlDeviceGetGpuInstanceProfileInfoV_fn, nvmlDeviceGetGpuInstanceProfileInfoV);
PROTO(nvmlGpmMigSampleGet_fn, nvmlGpmMigSampleGet);
PROTO(nvmlEventSetCreate_fn, nvmlEventSetCreate);
PROTO(nvmlDeviceRegisterEvents_fn, nvmlDeviceRegisterEvents);
PROTO(nvmlEventSetWait_v2_fn, nvmlEventSetWait_v2);
PROTO(nvmlEventSetFree_fn, nvmlEventSetFree);

#define FAKE_MAX 16
#define EXPORT __attribute__((visibility("default")))

#define FAKE_LINKS 18
#define FAKE_GPM 16

struct fake_link {
    int present, active;            /* listed; not <inactive> */
    double gbps;                    /* nvidia-smi's GB/s */
    char remote[64];                /* -R: remote PCI bus id */
    unsigned long long data_tx_kib, data_rx_kib, raw_tx_kib, raw_rx_kib;
    int has_data, has_raw;
    /* control file */
    int down, has_err, type, version, has_symbol, has_ber;
    unsigned long long err[4], symbol, ber;
};

struct fake_gpm {
    unsigned id;
    double value;
    unsigned gi;                    /* miggpm: the GPU instance */
};

#define FAKE_MIGS 8                 /* MIG devices per GPU (7 on A100/H100) */

/* One MIG device: what the MIG files say of MIG dev k of a GPU. */
struct fake_mig {
    int present;
    struct fake_dev *parent;
    unsigned gi, ci, sm, profile_id;
    int has_ids, has_mem, has_sm, has_profile_id;
    unsigned long long used_mib, total_mib;
    char profile[48];               /* "3g.40gb" */
    char uuid[96];
};

struct fake_dev {
    xmlDocPtr doc;
    xmlNodePtr gpu;
    char busid[64];
    int lost, gone;
    struct fake_link links[FAKE_LINKS];
    int has_recovery, has_ecc_volatile;
    unsigned recovery;
    unsigned long long ecc_volatile;
    struct fake_gpm gpm[FAKE_GPM];
    int ngpm;
    int has_violation[6];
    unsigned long long violation_ns[6];
    unsigned procutil[FAKE_GPM][3]; /* pid, sm, mem */
    int nprocutil;
    int has_temp, has_power, has_energy;
    unsigned temp, power_mw;
    unsigned long long energy_mj;
    int registered;
    struct fake_gpm miggpm[FAKE_GPM];
    int nmiggpm;
};

static struct fake_mig migs[FAKE_MAX][FAKE_MIGS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_dev devs[FAKE_MAX];
static int ndevs;
static xmlDocPtr docs[FAKE_MAX];
static int ndocs;
static int loaded;
static int xid_delivered;
static char driver_version[80];
static char cuda_version[16];

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* The function named in PNA_FAKE_NVML_HANG blocks here. */
static void maybe_hang(const char *fn)
{
    const char *h = getenv("PNA_FAKE_NVML_HANG");
    if (!h || strcmp(h, fn) != 0)
        return;
    const char *file = getenv("PNA_FAKE_NVML_HANG_FILE");
    for (;;) {
        if (file && *file && access(file, F_OK) != 0)
            return;
        sleep_ms(20);
    }
}

/* Trimmed text of the first node EXPR selects under NODE, or NULL. */
static char *text_at(xmlDocPtr doc, xmlNodePtr node, const char *expr, char *buf, size_t cap)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    if (!ctx)
        return NULL;
    ctx->node = node;
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    char *ret = NULL;
    if (obj && obj->nodesetval && obj->nodesetval->nodeNr > 0) {
        xmlChar *t = xmlNodeGetContent(obj->nodesetval->nodeTab[0]);
        if (t) {
            const char *s = (const char *)t;
            while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
                s++;
            snprintf(buf, cap, "%s", s);
            size_t n = strlen(buf);
            while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\n' ||
                         buf[n - 1] == '\r'))
                buf[--n] = '\0';
            ret = buf;
            xmlFree(t);
        }
    }
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
    return ret;
}

static const char *dev_text(struct fake_dev *d, const char *expr, char *buf, size_t cap)
{
    return text_at(d->doc, d->gpu, expr, buf, cap);
}

/* A number at the start of the text ("81559 MiB", "121.73 W", "16x"):
 * returns 0 and the value scaled by SCALE, or -1 for "N/A" and the like. */
static int dev_num(struct fake_dev *d, const char *expr, double scale, double *out)
{
    char buf[256];
    if (!dev_text(d, expr, buf, sizeof buf))
        return -1;
    char *end;
    double v = strtod(buf, &end);
    if (end == buf)
        return -1;
    *out = v * scale;
    return 0;
}

static int dev_uint(struct fake_dev *d, const char *expr, double scale, unsigned *out)
{
    double v;
    if (dev_num(d, expr, scale, &v) != 0 || v < 0)
        return -1;
    *out = (unsigned)(v + 0.5);
    return 0;
}

/* nvidia-smi lists every supported clock pair of a GPU (half the document)
 * and nothing here answers from them: they are not kept. */
static void drop_unread(xmlNodePtr gpu)
{
    for (xmlNodePtr c = gpu->children, next; c; c = next) {
        next = c->next;
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "supported_clocks") == 0) {
            xmlUnlinkNode(c);
            xmlFreeNode(c);
        }
    }
}

static void load_file(const char *path)
{
    /* Without blank text nodes and with short strings kept in the nodes:
     * the documents stay loaded, and their size is counted in the agent's
     * footprint (bench/run.sh). */
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS |
                                                XML_PARSE_COMPACT);
    if (!doc)
        return;
    if (ndocs == FAKE_MAX) {
        xmlFreeDoc(doc);
        return;
    }
    docs[ndocs++] = doc;
    char buf[128];
    if (!driver_version[0] && text_at(doc, xmlDocGetRootElement(doc), "driver_version", buf,
                                      sizeof buf))
        snprintf(driver_version, sizeof driver_version, "%.79s", buf);
    if (!cuda_version[0] && text_at(doc, xmlDocGetRootElement(doc), "cuda_version", buf,
                                    sizeof buf))
        snprintf(cuda_version, sizeof cuda_version, "%.15s", buf);
    for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "gpu") != 0 ||
            ndevs >= FAKE_MAX)
            continue;
        drop_unread(n);
        struct fake_dev *d = &devs[ndevs++];
        memset(d, 0, sizeof *d);
        d->doc = doc;
        d->gpu = n;
        if (!dev_text(d, "pci/pci_bus_id", d->busid, sizeof d->busid)) {
            xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
            snprintf(d->busid, sizeof d->busid, "%s", id ? (const char *)id : "");
            xmlFree(id);
        }
    }
}

static struct fake_dev *by_busid(const char *busid)
{
    for (int i = 0; i < ndevs; i++)
        if (strcasecmp(devs[i].busid, busid) == 0)
            return &devs[i];
    return NULL;
}

/* Per-device state the control file sets; applied in one step so a reader
 * on another thread never sees it half-reset. */
struct ctl_state {
    int lost, gone, has_temp, has_power, has_energy;
    unsigned temp, power_mw;
    unsigned long long energy_mj;
    int has_recovery, has_ecc_volatile;
    unsigned recovery;
    unsigned long long ecc_volatile;
    struct fake_gpm gpm[FAKE_GPM];
    int ngpm;
    struct fake_gpm miggpm[FAKE_GPM];
    int nmiggpm;
    int has_violation[6];
    unsigned long long violation_ns[6];
    unsigned procutil[FAKE_GPM][3];
    int nprocutil;
    struct {
        int down, has_err, type, version, has_symbol, has_ber;
        unsigned long long err[4], symbol, ber;
        char remote[64];
    } link[FAKE_LINKS];
};

static int link_type_of(const char *word)
{
    if (strcmp(word, "gpu") == 0)
        return NVML_NVLINK_DEVICE_TYPE_GPU;
    if (strcmp(word, "switch") == 0)
        return NVML_NVLINK_DEVICE_TYPE_SWITCH;
    if (strcmp(word, "cpu") == 0)
        return NVML_NVLINK_DEVICE_TYPE_IBMNPU;
    return -1;
}

/* The link lines of the control file. */
static void ctl_link_line(struct ctl_state *c, const char *verb, const char *line)
{
    unsigned n;
    if (sscanf(line, "%*s %*s %u", &n) != 1 || n >= FAKE_LINKS)
        return;
    char word[16];
    unsigned long long e[4];
    unsigned v;
    if (strcmp(verb, "linkdown") == 0)
        c->link[n].down = 1;
    else if (strcmp(verb, "linkerr") == 0 &&
             sscanf(line, "%*s %*s %*u %llu %llu %llu %llu", &e[0], &e[1], &e[2], &e[3]) == 4) {
        c->link[n].has_err = 1;
        memcpy(c->link[n].err, e, sizeof e);
    } else if (strcmp(verb, "linktype") == 0 && sscanf(line, "%*s %*s %*u %15s", word) == 1)
        c->link[n].type = link_type_of(word) + 1;       /* 0: not set */
    else if (strcmp(verb, "linkversion") == 0 && sscanf(line, "%*s %*s %*u %u", &v) == 1)
        c->link[n].version = (int)v;
    else if (strcmp(verb, "linkremote") == 0)
        sscanf(line, "%*s %*s %*u %63s", c->link[n].remote);
    else if (strcmp(verb, "linksymbol") == 0 && sscanf(line, "%*s %*s %*u %llu", &e[0]) == 1) {
        c->link[n].has_symbol = 1;
        c->link[n].symbol = e[0];
    } else if (strcmp(verb, "linkber") == 0 && sscanf(line, "%*s %*s %*u %lli", (long long *)&e[0]) == 1) {
        c->link[n].has_ber = 1;
        c->link[n].ber = e[0];
    }
}

/* Apply the control file; ON_XID sees each "xid" line with its ordinal. */
/* Whether the control file changed since the last read of this kind (with or
 * without XID delivery): the event wait reads it every few milliseconds, and
 * parsing it each time would take the CPU the agent's own threads need. */
static int ctl_changed(const char *path, int kind)
{
    static struct { int valid; dev_t dev; ino_t ino; off_t size; struct timespec mtime; } last[2];
    struct stat sb;
    if (!path || stat(path, &sb) != 0) {
        int was = last[kind].valid;
        last[kind].valid = 0;
        return was || !path; /* gone: the state resets once */
    }
    if (last[kind].valid && last[kind].dev == sb.st_dev && last[kind].ino == sb.st_ino &&
        last[kind].size == sb.st_size && last[kind].mtime.tv_sec == sb.st_mtim.tv_sec &&
        last[kind].mtime.tv_nsec == sb.st_mtim.tv_nsec)
        return 0;
    last[kind].valid = 1;
    last[kind].dev = sb.st_dev;
    last[kind].ino = sb.st_ino;
    last[kind].size = sb.st_size;
    last[kind].mtime = sb.st_mtim;
    return 1;
}

static void read_ctl(void (*on_xid)(struct fake_dev *, unsigned long long, int, void *), void *arg)
{
    const char *path = getenv("PNA_FAKE_NVML_CTL");
    static int xid_lines; /* XID lines of the last read: those not delivered yet are read again */
    if (!ctl_changed(path, on_xid != NULL) && (!on_xid || xid_lines <= xid_delivered))
        return;
    static struct ctl_state st[FAKE_MAX]; /* under the library's lock */
    memset(st, 0, (size_t)ndevs * sizeof st[0]);
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[256];
    int xids = 0;
    while (f && fgets(line, sizeof line, f)) {
        char verb[16], busid[64], field[32];
        unsigned long long v;
        struct fake_dev *d;
        if (sscanf(line, "%15s %63s", verb, busid) != 2 || !(d = by_busid(busid)))
            continue;
        struct ctl_state *c = &st[d - devs];
        if (strcmp(verb, "lost") == 0)
            c->lost = 1;
        else if (strcmp(verb, "gone") == 0)
            c->gone = 1;
        else if (strcmp(verb, "set") == 0 && sscanf(line, "%*s %*s %31s %llu", field, &v) == 2) {
            if (strcmp(field, "temp") == 0) {
                c->has_temp = 1;
                c->temp = (unsigned)v;
            } else if (strcmp(field, "power_mw") == 0) {
                c->has_power = 1;
                c->power_mw = (unsigned)v;
            } else if (strcmp(field, "energy_mj") == 0) {
                c->has_energy = 1;
                c->energy_mj = v;
            } else if (strcmp(field, "recovery") == 0) {
                c->has_recovery = 1;
                c->recovery = (unsigned)v;
            } else if (strcmp(field, "ecc_volatile") == 0) {
                c->has_ecc_volatile = 1;
                c->ecc_volatile = v;
            }
        } else if (strncmp(verb, "link", 4) == 0) {
            ctl_link_line(c, verb, line);
        } else if (strcmp(verb, "procutil") == 0 && c->nprocutil < FAKE_GPM) {
            unsigned *u = c->procutil[c->nprocutil];
            if (sscanf(line, "%*s %*s %u %u %u", &u[0], &u[1], &u[2]) == 3)
                c->nprocutil++;
        } else if (strcmp(verb, "violation") == 0) {
            unsigned policy;
            if (sscanf(line, "%*s %*s %u %llu", &policy, &v) == 2 && policy < 6) {
                c->has_violation[policy] = 1;
                c->violation_ns[policy] = v;
            }
        } else if (strcmp(verb, "gpm") == 0 && c->ngpm < FAKE_GPM) {
            unsigned id;
            double value;
            if (sscanf(line, "%*s %*s %u %lf", &id, &value) == 2)
                c->gpm[c->ngpm++] = (struct fake_gpm){ id, value, 0 };
        } else if (strcmp(verb, "miggpm") == 0 && c->nmiggpm < FAKE_GPM) {
            unsigned gi, id;
            double value;
            if (sscanf(line, "%*s %*s %u %u %lf", &gi, &id, &value) == 3)
                c->miggpm[c->nmiggpm++] = (struct fake_gpm){ id, value, gi };
        } else if (strcmp(verb, "xid") == 0 && sscanf(line, "%*s %*s %llu", &v) == 1) {
            if (on_xid)
                on_xid(d, v, xids, arg);
            xids++;
        }
    }
    if (f)
        fclose(f);
    if (on_xid)
        xid_lines = xids;
    for (int i = 0; i < ndevs; i++) {
        devs[i].lost = st[i].lost;
        devs[i].gone = st[i].gone;
        devs[i].temp = st[i].temp;
        devs[i].has_temp = st[i].has_temp;
        devs[i].power_mw = st[i].power_mw;
        devs[i].has_power = st[i].has_power;
        devs[i].energy_mj = st[i].energy_mj;
        devs[i].has_energy = st[i].has_energy;
        devs[i].has_recovery = st[i].has_recovery;
        devs[i].recovery = st[i].recovery;
        devs[i].has_ecc_volatile = st[i].has_ecc_volatile;
        devs[i].ecc_volatile = st[i].ecc_volatile;
        memcpy(devs[i].gpm, st[i].gpm, sizeof st[i].gpm);
        devs[i].ngpm = st[i].ngpm;
        memcpy(devs[i].miggpm, st[i].miggpm, sizeof st[i].miggpm);
        devs[i].nmiggpm = st[i].nmiggpm;
        memcpy(devs[i].has_violation, st[i].has_violation, sizeof st[i].has_violation);
        memcpy(devs[i].procutil, st[i].procutil, sizeof st[i].procutil);
        devs[i].nprocutil = st[i].nprocutil;
        memcpy(devs[i].violation_ns, st[i].violation_ns, sizeof st[i].violation_ns);
        for (int k = 0; k < FAKE_LINKS; k++) {
            struct fake_link *l = &devs[i].links[k];
            l->down = st[i].link[k].down;
            l->has_err = st[i].link[k].has_err;
            memcpy(l->err, st[i].link[k].err, sizeof l->err);
            l->type = st[i].link[k].type;
            l->version = st[i].link[k].version;
            l->has_symbol = st[i].link[k].has_symbol;
            l->symbol = st[i].link[k].symbol;
            l->has_ber = st[i].link[k].has_ber;
            l->ber = st[i].link[k].ber;
            if (st[i].link[k].remote[0])
                snprintf(l->remote, sizeof l->remote, "%s", st[i].link[k].remote);
        }
    }
}

/* Devices are handed out as pointers into devs[]; "gone" ones are skipped. */
static struct fake_dev *visible(unsigned index)
{
    unsigned seen = 0;
    for (int i = 0; i < ndevs; i++) {
        if (devs[i].gone)
            continue;
        if (seen++ == index)
            return &devs[i];
    }
    return NULL;
}

static struct fake_dev *D(nvmlDevice_t dev)
{
    return (struct fake_dev *)dev;
}

/* A MIG device handle points into migs[], a GPU's into devs[]. */
static struct fake_mig *MIG(nvmlDevice_t dev)
{
    const char *p = (const char *)dev, *lo = (const char *)migs;
    return p >= lo && p < lo + sizeof migs ? (struct fake_mig *)dev : NULL;
}

/* The entry of a MIG device call: its GPU lost is the MIG device lost. */
#define MIG_ENTER(fn, dev, m)                            \
    maybe_hang(fn);                                      \
    struct fake_mig *m = MIG(dev);                       \
    if (!loaded)                                         \
        return NVML_ERROR_UNINITIALIZED;                 \
    if (!m)                                              \
        return NVML_ERROR_INVALID_ARGUMENT;              \
    if (m->parent->lost)                                 \
        return NVML_ERROR_GPU_IS_LOST

/* Common entry of every device call: hang if asked, lost if marked. */
#define ENTER(fn, dev)                                   \
    do {                                                 \
        maybe_hang(fn);                                  \
        if (!loaded)                                     \
            return NVML_ERROR_UNINITIALIZED;             \
        if (!(dev))                                      \
            return NVML_ERROR_INVALID_ARGUMENT;          \
        if (D(dev)->lost)                                \
            return NVML_ERROR_GPU_IS_LOST;               \
    } while (0)

static nvmlReturn_t copy_text(struct fake_dev *d, const char *expr, char *out, unsigned len)
{
    char buf[256];
    if (!dev_text(d, expr, buf, sizeof buf) || strcmp(buf, "N/A") == 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (strlen(buf) + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, buf, strlen(buf) + 1);
    return NVML_SUCCESS;
}

static nvmlReturn_t uint_at(struct fake_dev *d, const char *expr, double scale, unsigned *out)
{
    return dev_uint(d, expr, scale, out) == 0 ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

/* One "Link k: ..." line of `nvidia-smi nvlink` for link L. */
static void nvlink_line(struct fake_link *l, const char *rest)
{
    char remote[64];
    unsigned long long kib;
    double gbps;
    l->present = 1;
    if (strstr(rest, "<inactive>"))
        l->active = 0;
    else if (sscanf(rest, " %lf GB/s", &gbps) == 1) {
        l->active = 1;
        l->gbps = gbps;
    } else if (sscanf(rest, " Remote Device %63[0-9A-Fa-f:.]", remote) == 1)
        snprintf(l->remote, sizeof l->remote, "%s", remote);
    else if (sscanf(rest, " Data Tx: %llu KiB", &kib) == 1)
        l->data_tx_kib = kib, l->has_data = 1;
    else if (sscanf(rest, " Data Rx: %llu KiB", &kib) == 1)
        l->data_rx_kib = kib, l->has_data = 1;
    else if (sscanf(rest, " Raw Tx: %llu KiB", &kib) == 1)
        l->raw_tx_kib = kib, l->has_raw = 1;
    else if (sscanf(rest, " Raw Rx: %llu KiB", &kib) == 1)
        l->raw_rx_kib = kib, l->has_raw = 1;
}

/* `nvidia-smi nvlink` output: "GPU n: name (UUID: ...)" then its links,
 * each line indented by a tab and a space in real output. */
static void load_nvlink(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int gpu = -1;
    while (f && fgets(line, sizeof line, f)) {
        unsigned n, k;
        int off = 0;
        if (sscanf(line, "GPU %u:", &n) == 1) {
            gpu = n < (unsigned)ndevs ? (int)n : -1;
            continue;
        }
        if (gpu >= 0 && sscanf(line, " Link %u:%n", &k, &off) == 1 && off > 0 && k < FAKE_LINKS)
            nvlink_line(&devs[gpu].links[k], line + off);
    }
    if (f)
        fclose(f);
}

/* ---- MIG files ------------------------------------------------------------------ */

static struct fake_mig *mig_at(unsigned gpu, unsigned k)
{
    if (gpu >= (unsigned)ndevs || k >= FAKE_MIGS)
        return NULL;
    struct fake_mig *m = &migs[gpu][k];
    m->present = 1;
    m->parent = &devs[gpu];
    return m;
}

/* A row of the "MIG devices:" table: "|  0    2   0   0  |  16MiB / 40448MiB  | 60 ...". */
static void mig_table_row(const char *line)
{
    unsigned gpu, gi, ci, k, sm;
    unsigned long long used, total;
    if (sscanf(line, "| %u %u %u %u | %lluMiB / %lluMiB | %u", &gpu, &gi, &ci, &k, &used, &total,
               &sm) != 7)
        return;
    struct fake_mig *m = mig_at(gpu, k);
    if (!m)
        return;
    m->gi = gi, m->ci = ci, m->has_ids = 1;
    m->used_mib = used, m->total_mib = total, m->has_mem = 1;
    m->sm = sm, m->has_sm = 1;
}

/* `nvidia-smi -L`: "  MIG 3g.40gb     Device  0: (UUID: MIG-...)" under "GPU n: ...". */
static void mig_list_line(unsigned gpu, const char *line)
{
    char profile[48], uuid[96];
    unsigned k;
    if (sscanf(line, " MIG %47s Device %u: (UUID: %95[^)])", profile, &k, uuid) != 3)
        return;
    struct fake_mig *m = mig_at(gpu, k);
    if (!m)
        return;
    snprintf(m->profile, sizeof m->profile, "%s", profile);
    snprintf(m->uuid, sizeof m->uuid, "%s", uuid);
}

/* `nvidia-smi mig -lgi`: "|   0  MIG 2g.10gb       19        3          4:2    |". */
struct lgi_row {
    unsigned gpu, profile_id, gi;
    char profile[48];
};
static struct lgi_row lgi_rows[FAKE_MAX * FAKE_MIGS];
static int nlgi;

static void load_mig(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int in_table = 0;
    unsigned gpu = ~0u;
    while (f && fgets(line, sizeof line, f)) {
        struct lgi_row r;
        if (strstr(line, "MIG devices:"))
            in_table = 1;
        else if (strstr(line, "Processes:") || (line[0] != '|' && line[0] != '+'))
            in_table = 0;   /* the table ends at the next one, or at other text */
        if (in_table)
            mig_table_row(line);
        else if (sscanf(line, "GPU %u:", &gpu) == 1)
            continue;
        else if (strncmp(line, "  MIG ", 6) == 0)
            mig_list_line(gpu, line);
        else if (nlgi < FAKE_MAX * FAKE_MIGS &&
                 sscanf(line, "| %u MIG %47s %u %u", &r.gpu, r.profile, &r.profile_id, &r.gi) == 4)
            lgi_rows[nlgi++] = r;
    }
    if (f)
        fclose(f);
}

/* -lgi names the profile of a GPU instance, and its id. */
static void apply_lgi(void)
{
    for (int i = 0; i < nlgi; i++)
        for (int k = 0; lgi_rows[i].gpu < (unsigned)ndevs && k < FAKE_MIGS; k++) {
            struct fake_mig *m = &migs[lgi_rows[i].gpu][k];
            if (!m->present || !m->has_ids || m->gi != lgi_rows[i].gi)
                continue;
            snprintf(m->profile, sizeof m->profile, "%s", lgi_rows[i].profile);
            m->profile_id = lgi_rows[i].profile_id;
            m->has_profile_id = 1;
        }
}

static int dev_has_migs(const struct fake_dev *d)
{
    for (int k = 0; k < FAKE_MIGS; k++)
        if (migs[d - devs][k].present)
            return 1;
    return 0;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    maybe_hang("nvmlInit_v2");
    const char *rc = getenv("PNA_FAKE_NVML_INIT_RC");
    if (rc && *rc)
        return atoi(rc);
    pthread_mutex_lock(&lock);
    if (!loaded) {
        const char *list = getenv("PNA_FAKE_NVML_XML");
        char *copy = strdup(list ? list : "");
        for (char *save, *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
            load_file(p);
        free(copy);
        const char *nvlink = getenv("PNA_FAKE_NVML_NVLINK");
        copy = strdup(nvlink ? nvlink : "");
        for (char *save, *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
            load_nvlink(p);
        free(copy);
        memset(migs, 0, sizeof migs);
        nlgi = 0;
        const char *mig = getenv("PNA_FAKE_NVML_MIG");
        copy = strdup(mig ? mig : "");
        for (char *save, *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
            load_mig(p);
        free(copy);
        apply_lgi();
        loaded = 1;
    }
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

/* Everything loaded goes, so a leak checker sees the agent's leaks only. */
EXPORT nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ndocs; i++)
        xmlFreeDoc(docs[i]);
    ndocs = ndevs = 0;
    loaded = 0;
    driver_version[0] = cuda_version[0] = '\0';
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t rc)
{
    switch (rc) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    default: return "Unknown Error";
    }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    if (!driver_version[0])
        return NVML_ERROR_NOT_SUPPORTED;
    snprintf(buf, len, "%s", driver_version);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
    int major = 0, minor = 0;
    if (sscanf(cuda_version, "%d.%d", &major, &minor) != 2)
        return NVML_ERROR_NOT_SUPPORTED;
    *v = major * 1000 + minor * 10;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    maybe_hang("nvmlDeviceGetCount_v2");
    if (!loaded)
        return NVML_ERROR_UNINITIALIZED;
    pthread_mutex_lock(&lock);
    read_ctl(NULL, NULL);
    unsigned n = 0;
    for (int i = 0; i < ndevs; i++)
        n += !devs[i].gone;
    pthread_mutex_unlock(&lock);
    *count = n;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev)
{
    maybe_hang("nvmlDeviceGetHandleByIndex_v2");
    struct fake_dev *d = visible(index);
    if (!d)
        return NVML_ERROR_INVALID_ARGUMENT;
    *dev = (nvmlDevice_t)d;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
    ENTER("nvmlDeviceGetPciInfo_v3", dev);
    struct fake_dev *d = D(dev);
    unsigned dom = 0, bus = 0, slot = 0, fn = 0;
    if (sscanf(d->busid, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4)
        return NVML_ERROR_UNKNOWN;
    memset(pci, 0, sizeof *pci);
    pci->domain = dom;
    pci->bus = bus;
    pci->device = slot;
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", dom, bus, slot);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", dom & 0xffff, bus,
             slot);
    char buf[64];
    if (dev_text(d, "pci/pci_device_id", buf, sizeof buf))
        pci->pciDeviceId = (unsigned)strtoul(buf, NULL, 16);
    if (dev_text(d, "pci/pci_sub_system_id", buf, sizeof buf))
        pci->pciSubSystemId = (unsigned)strtoul(buf, NULL, 16);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *buf, unsigned int len)
{
    ENTER("nvmlDeviceGetName", dev);
    return copy_text(D(dev), "product_name", buf, len);
}

static nvmlReturn_t mig_uuid(nvmlDevice_t dev, char *buf, unsigned int len)
{
    MIG_ENTER("nvmlDeviceGetUUID", dev, m);
    if (!m->uuid[0])
        return NVML_ERROR_NOT_SUPPORTED;
    if (strlen(m->uuid) + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, m->uuid, strlen(m->uuid) + 1);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *buf, unsigned int len)
{
    if (MIG(dev))
        return mig_uuid(dev, buf, len);
    ENTER("nvmlDeviceGetUUID", dev);
    return copy_text(D(dev), "uuid", buf, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t dev, char *buf, unsigned int len)
{
    ENTER("nvmlDeviceGetSerial", dev);
    return copy_text(D(dev), "serial", buf, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t dev, char *buf, unsigned int len)
{
    ENTER("nvmlDeviceGetVbiosVersion", dev);
    return copy_text(D(dev), "vbios_version", buf, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t dev, unsigned int *v)
{
    ENTER("nvmlDeviceGetMinorNumber", dev);
    return uint_at(D(dev), "minor_number", 1, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u)
{
    ENTER("nvmlDeviceGetUtilizationRates", dev);
    if (uint_at(D(dev), "utilization/gpu_util", 1, &u->gpu) != NVML_SUCCESS ||
        uint_at(D(dev), "utilization/memory_util", 1, &u->memory) != NVML_SUCCESS)
        return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

static int mem_mib(struct fake_dev *d, const char *what, double *out)
{
    char expr[64];
    snprintf(expr, sizeof expr, "fb_memory_usage/%s", what);
    return dev_num(d, expr, 1048576.0, out);
}

/* A MIG device's memory as the table prints it: used of total, MiB. */
static nvmlReturn_t mig_memory(nvmlDevice_t dev, unsigned long long *total,
                               unsigned long long *used)
{
    MIG_ENTER("nvmlDeviceGetMemoryInfo", dev, m);
    if (!m->has_mem)
        return NVML_ERROR_NOT_SUPPORTED;
    *total = m->total_mib << 20;
    *used = m->used_mib << 20;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *m)
{
    if (MIG(dev)) {
        nvmlReturn_t rc = mig_memory(dev, &m->total, &m->used);
        m->free = rc == NVML_SUCCESS ? m->total - m->used : 0;
        return rc;
    }
    ENTER("nvmlDeviceGetMemoryInfo", dev);
    double total, used, free_, reserved = 0;
    if (mem_mib(D(dev), "total", &total) || mem_mib(D(dev), "used", &used) ||
        mem_mib(D(dev), "free", &free_))
        return NVML_ERROR_NOT_SUPPORTED;
    mem_mib(D(dev), "reserved", &reserved);
    /* v1 counts the driver's reservation as used */
    m->total = (unsigned long long)total;
    m->used = (unsigned long long)(used + reserved);
    m->free = (unsigned long long)free_;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *m)
{
    if (MIG(dev)) {
        if (m->version != nvmlMemory_v2)
            return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t rc = mig_memory(dev, &m->total, &m->used);
        m->reserved = 0;
        m->free = rc == NVML_SUCCESS ? m->total - m->used : 0;
        return rc;
    }
    ENTER("nvmlDeviceGetMemoryInfo_v2", dev);
    if (m->version != nvmlMemory_v2)
        return NVML_ERROR_INVALID_ARGUMENT;
    double total, used, free_, reserved = 0;
    if (mem_mib(D(dev), "total", &total) || mem_mib(D(dev), "used", &used) ||
        mem_mib(D(dev), "free", &free_))
        return NVML_ERROR_NOT_SUPPORTED;
    mem_mib(D(dev), "reserved", &reserved);
    m->total = (unsigned long long)total;
    m->used = (unsigned long long)used;
    m->free = (unsigned long long)free_;
    m->reserved = (unsigned long long)reserved;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned int *t)
{
    ENTER("nvmlDeviceGetTemperature", dev);
    if (sensor != NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (D(dev)->has_temp) {
        *t = D(dev)->temp;
        return NVML_SUCCESS;
    }
    return uint_at(D(dev), "temperature/gpu_temp", 1, t);
}

static int int_at(struct fake_dev *d, const char *expr, long *out)
{
    char buf[64], *end;
    if (!dev_text(d, expr, buf, sizeof buf))
        return -1;
    *out = strtol(buf, &end, 10);
    return end == buf ? -1 : 0;
}

/* Real NVML answers absolute thresholds also where nvidia-smi -q -x (R570+)
 * prints only T.Limit margins; they are temperature + T.Limit - margin
 * (an H100 on 580.159 answers 89 and 95 C, its XML 35 C, 52 C, -2 C, -8 C). */
static nvmlReturn_t threshold_at(struct fake_dev *d, const char *absolute, const char *margin,
                                 unsigned *out)
{
    long temp, tlimit, m;
    if (uint_at(d, absolute, 1, out) == NVML_SUCCESS)
        return NVML_SUCCESS;
    if (int_at(d, "temperature/gpu_temp", &temp) != 0 ||
        int_at(d, "temperature/gpu_temp_tlimit", &tlimit) != 0 || int_at(d, margin, &m) != 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *out = (unsigned)(temp + tlimit - m);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t dev, int which,
                                                      unsigned int *t)
{
    ENTER("nvmlDeviceGetTemperatureThreshold", dev);
    if (which == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
        return threshold_at(D(dev), "temperature/gpu_temp_slow_threshold",
                            "temperature/gpu_temp_slow_tlimit_threshold", t);
    if (which == NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)
        return threshold_at(D(dev), "temperature/gpu_temp_max_threshold",
                            "temperature/gpu_temp_max_tlimit_threshold", t);
    return NVML_ERROR_NOT_SUPPORTED;
}

/* The XML's recovery action ("None", "Reset", "Reboot", "Drain P2P",
 * "Drain and Reset") as NVML numbers it. */
static int recovery_of(struct fake_dev *d, unsigned *out)
{
    if (d->has_recovery) {
        *out = d->recovery;
        return 0;
    }
    char buf[64];
    static const char *const names[] = { "None", "Reset", "Reboot", "Drain P2P", "Drain and Reset" };
    if (!dev_text(d, "gpu_recovery_action", buf, sizeof buf))
        return -1;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(buf, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

/* A clock-event counter of the XML ("123 us") in nanoseconds. */
static int held_ns(struct fake_dev *d, const char *name, unsigned long long *out)
{
    char expr[128];
    double us;
    snprintf(expr, sizeof expr, "clocks_event_reasons_counters/clocks_event_reasons_counters_%s", name);
    if (dev_num(d, expr, 1, &us) != 0 || us < 0)
        return -1;
    *out = (unsigned long long)(us * 1000.0 + 0.5);
    return 0;
}

static struct fake_link *link_of(struct fake_dev *d, unsigned scope)
{
    return scope < FAKE_LINKS && d->links[scope].present ? &d->links[scope] : NULL;
}

/* One field; returns 0 with V filled, -1 when not offered. */
static int field_value(struct fake_dev *d, nvmlFieldValue_t *v)
{
    unsigned t;
    unsigned long long ns;
    struct fake_link *l = link_of(d, v->scopeId);
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    switch (v->fieldId) {
    case NVML_FI_DEV_MEMORY_TEMP:
        if (uint_at(d, "temperature/memory_temp", 1, &t) != NVML_SUCCESS)
            return -1;
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->value.uiVal = t;
        return 0;
    case NVML_FI_DEV_GET_GPU_RECOVERY_ACTION:
        if (recovery_of(d, &t) != 0)
            return -1;
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->value.uiVal = t;
        return 0;
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN: {
        const char *name = v->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN ? "sw_therm_slowdown"
                           : v->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN ? "hw_therm_slowdown"
                                                                                          : "hw_power_brake";
        if (held_ns(d, name, &ns) != 0)
            return -1;
        v->value.ullVal = ns;
        return 0;
    }
    case NVML_FI_DEV_NVLINK_GET_SPEED:
        if (!l || !l->active || l->down)
            return -1;
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->value.uiVal = (unsigned)(l->gbps * 1000.0 + 0.5); /* GB/s to MBps */
        return 0;
    case NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS:
        if (!l || !l->has_symbol)
            return -1;
        v->value.ullVal = l->symbol;
        return 0;
    case NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER:
        if (!l || !l->has_ber)
            return -1;
        v->value.ullVal = l->ber;
        return 0;
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
    case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
        /* the data counters where recorded, else the raw ones (nvlink -gt r) */
        if (!l || (!l->has_data && !l->has_raw))
            return -1;
        if (v->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX)
            v->value.ullVal = l->has_data ? l->data_tx_kib : l->raw_tx_kib;
        else
            v->value.ullVal = l->has_data ? l->data_rx_kib : l->raw_rx_kib;
        return 0;
    default:
        return -1;
    }
}

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t dev, int count, nvmlFieldValue_t *v)
{
    ENTER("nvmlDeviceGetFieldValues", dev);
    for (int i = 0; i < count; i++)
        v[i].nvmlReturn = field_value(D(dev), &v[i]) == 0 ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

/* Power and sync boost are what nvidia-smi's counters of the same names
 * read (NVML aliases the clock-event fields to these policies); the other
 * policies have no recorded value. */
EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t dev, int policy, nvmlViolationTime_t *vt)
{
    ENTER("nvmlDeviceGetViolationStatus", dev);
    if (policy >= 0 && policy < 6 && D(dev)->has_violation[policy]) {
        vt->referenceTime = 0;
        vt->violationTime = D(dev)->violation_ns[policy];
        return NVML_SUCCESS;
    }
    const char *name = policy == NVML_PERF_POLICY_POWER        ? "sw_power_cap"
                       : policy == NVML_PERF_POLICY_SYNC_BOOST ? "sync_boost"
                                                               : NULL;
    unsigned long long ns;
    if (!name || held_ns(D(dev), name, &ns) != 0)
        return NVML_ERROR_NOT_SUPPORTED;
    vt->referenceTime = 0;
    vt->violationTime = ns;
    return NVML_SUCCESS;
}

/* The XML's fabric state ("Completed", "In Progress", "Not Started"; "N/A"
 * off NVSwitch systems) and status ("Success", else a failure). */
EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t dev, nvmlGpuFabricInfoV_t *fi)
{
    ENTER("nvmlDeviceGetGpuFabricInfoV", dev);
    char state[64], status[64];
    if (!dev_text(D(dev), "fabric/state", state, sizeof state))
        return NVML_ERROR_NOT_SUPPORTED;
    if (strcasecmp(state, "Completed") == 0)
        fi->state = NVML_GPU_FABRIC_STATE_COMPLETED;
    else if (strcasecmp(state, "In Progress") == 0)
        fi->state = NVML_GPU_FABRIC_STATE_IN_PROGRESS;
    else if (strcasecmp(state, "Not Started") == 0)
        fi->state = NVML_GPU_FABRIC_STATE_NOT_STARTED;
    else
        fi->state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
    fi->status = dev_text(D(dev), "fabric/status", status, sizeof status) &&
                         strcasecmp(status, "Success") != 0 && strcmp(status, "N/A") != 0
                     ? NVML_ERROR_UNKNOWN
                     : NVML_SUCCESS;
    return NVML_SUCCESS;
}

/* The control file's samples, each newer than the last call's. */
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t dev,
                                                    nvmlProcessUtilizationSample_t *out,
                                                    unsigned int *count, unsigned long long since)
{
    ENTER("nvmlDeviceGetProcessUtilization", dev);
    static unsigned long long clock_us = 1000;
    struct fake_dev *d = D(dev);
    if (!d->nprocutil)
        return NVML_ERROR_NOT_FOUND;
    if (!out || *count < (unsigned)d->nprocutil) {
        *count = (unsigned)d->nprocutil;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    clock_us = clock_us > since ? clock_us + 1 : since + 1;
    for (int i = 0; i < d->nprocutil; i++)
        out[i] = (nvmlProcessUtilizationSample_t){ .pid = d->procutil[i][0], .timeStamp = clock_us,
                                                   .smUtil = d->procutil[i][1], .memUtil = d->procutil[i][2] };
    *count = (unsigned)d->nprocutil;
    return NVML_SUCCESS;
}

/* ---- NVLink ------------------------------------------------------------------ */

#define LINK_ENTER(fn, dev, n, l)                                        \
    ENTER(fn, dev);                                                      \
    struct fake_link *l = (n) < FAKE_LINKS && D(dev)->links[n].present   \
                              ? &D(dev)->links[n] : NULL;                \
    if (!l)                                                              \
        return NVML_ERROR_INVALID_ARGUMENT

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t dev, unsigned int n, int *state)
{
    LINK_ENTER("nvmlDeviceGetNvLinkState", dev, n, l);
    *state = l->active && !l->down ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t dev, unsigned int n, unsigned int *v)
{
    LINK_ENTER("nvmlDeviceGetNvLinkVersion", dev, n, l);
    if (!l->version)
        return NVML_ERROR_NOT_SUPPORTED;
    *v = (unsigned)l->version;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t dev, unsigned int n,
                                                        nvmlPciInfo_t *pci)
{
    LINK_ENTER("nvmlDeviceGetNvLinkRemotePciInfo_v2", dev, n, l);
    unsigned dom, bus, slot, fn;
    if (!l->remote[0] || sscanf(l->remote, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4)
        return NVML_ERROR_NOT_SUPPORTED;
    memset(pci, 0, sizeof *pci);
    snprintf(pci->busId, sizeof pci->busId, "%s", l->remote);
    pci->domain = dom;
    pci->bus = bus;
    pci->device = slot;
    return NVML_SUCCESS;
}

/* Set by the control file, else a GPU when the remote address is one of the
 * devices (as on the recorded two-GPU bridge). */
EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t dev, unsigned int n, int *type)
{
    LINK_ENTER("nvmlDeviceGetNvLinkRemoteDeviceType", dev, n, l);
    if (l->type) {
        *type = l->type - 1;
        return NVML_SUCCESS;
    }
    if (l->remote[0] && by_busid(l->remote)) {
        *type = NVML_NVLINK_DEVICE_TYPE_GPU;
        return NVML_SUCCESS;
    }
    return NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t dev, unsigned int n, int counter,
                                                    unsigned long long *v)
{
    LINK_ENTER("nvmlDeviceGetNvLinkErrorCounter", dev, n, l);
    if (!l->has_err || counter < 0 || counter > 3)
        return NVML_ERROR_NOT_SUPPORTED;
    *v = l->err[counter];
    return NVML_SUCCESS;
}

/* ---- GPU performance monitoring -------------------------------------------------- */

struct nvmlGpmSample_st {
    struct fake_dev *dev;
    unsigned gi;                    /* GPU instance + 1; 0: the whole GPU */
};

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t dev, nvmlGpmSupport_t *sup)
{
    ENTER("nvmlGpmQueryDeviceSupport", dev);
    sup->isSupportedDevice = D(dev)->ngpm > 0 || D(dev)->nmiggpm > 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *out)
{
    *out = calloc(1, sizeof **out);
    return *out ? NVML_SUCCESS : NVML_ERROR_UNKNOWN;
}

EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t s)
{
    free(s);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t dev, nvmlGpmSample_t s)
{
    ENTER("nvmlGpmSampleGet", dev);
    s->dev = D(dev);
    s->gi = 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t dev, unsigned int gi, nvmlGpmSample_t s)
{
    ENTER("nvmlGpmMigSampleGet", dev);
    s->dev = D(dev);
    s->gi = gi + 1;
    return NVML_SUCCESS;
}

/* Each metric answers the control file's value for the device sampled. */
EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *mg)
{
    if (!mg || !mg->sample1 || !mg->sample2 || mg->sample1->dev != mg->sample2->dev ||
        mg->sample1->gi != mg->sample2->gi || mg->numMetrics > NVML_GPM_METRIC_MAX)
        return NVML_ERROR_INVALID_ARGUMENT;
    struct fake_dev *d = mg->sample2->dev;
    unsigned gi = mg->sample2->gi;
    const struct fake_gpm *set = gi ? d->miggpm : d->gpm;
    int n = gi ? d->nmiggpm : d->ngpm;
    for (unsigned i = 0; i < mg->numMetrics; i++) {
        mg->metrics[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        for (int k = 0; k < n; k++)
            if (set[k].id == mg->metrics[i].metricId && (!gi || set[k].gi + 1 == gi)) {
                mg->metrics[i].value = set[k].value;
                mg->metrics[i].nvmlReturn = NVML_SUCCESS;
            }
    }
    return NVML_SUCCESS;
}

/* Power draw: the one reading v11/v12 print, or v13's average (what NVML's
 * nvmlDeviceGetPowerUsage reports on those GPUs). */
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned int *mw)
{
    ENTER("nvmlDeviceGetPowerUsage", dev);
    if (D(dev)->has_power) {
        *mw = D(dev)->power_mw;
        return NVML_SUCCESS;
    }
    static const char *const exprs[] = {
        "power_readings/power_draw", "gpu_power_readings/power_draw",
        "gpu_power_readings/average_power_draw", "gpu_power_readings/instant_power_draw",
    };
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++)
        if (uint_at(D(dev), exprs[i], 1000, mw) == NVML_SUCCESS)
            return NVML_SUCCESS;
    return NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t dev, unsigned int *mw)
{
    ENTER("nvmlDeviceGetEnforcedPowerLimit", dev);
    if (uint_at(D(dev), "power_readings/enforced_power_limit", 1000, mw) == NVML_SUCCESS)
        return NVML_SUCCESS;
    return uint_at(D(dev), "gpu_power_readings/current_power_limit", 1000, mw);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t dev, unsigned long long *mj)
{
    ENTER("nvmlDeviceGetTotalEnergyConsumption", dev);
    if (!D(dev)->has_energy)
        return NVML_ERROR_NOT_SUPPORTED; /* nvidia-smi -q -x does not print it */
    *mj = D(dev)->energy_mj;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
    ENTER("nvmlDeviceGetClockInfo", dev);
    const char *expr = type == NVML_CLOCK_SM    ? "clocks/sm_clock"
                       : type == NVML_CLOCK_MEM ? "clocks/mem_clock"
                                                : "clocks/graphics_clock";
    return uint_at(D(dev), expr, 1, mhz);
}

EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t dev, unsigned int *pct)
{
    ENTER("nvmlDeviceGetFanSpeed", dev);
    return uint_at(D(dev), "fan_speed", 1, pct);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t dev, unsigned int *v)
{
    ENTER("nvmlDeviceGetCurrPcieLinkGeneration", dev);
    return uint_at(D(dev), "pci/pci_gpu_link_info/pcie_gen/current_link_gen", 1, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t dev, unsigned int *v)
{
    ENTER("nvmlDeviceGetCurrPcieLinkWidth", dev);
    return uint_at(D(dev), "pci/pci_gpu_link_info/link_widths/current_link_width", 1, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t dev, unsigned int *v)
{
    ENTER("nvmlDeviceGetMaxPcieLinkGeneration", dev);
    return uint_at(D(dev), "pci/pci_gpu_link_info/pcie_gen/max_link_gen", 1, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t dev, unsigned int *v)
{
    ENTER("nvmlDeviceGetMaxPcieLinkWidth", dev);
    return uint_at(D(dev), "pci/pci_gpu_link_info/link_widths/max_link_width", 1, v);
}

/* "P0" .. "P15" */
EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t dev, int *p)
{
    ENTER("nvmlDeviceGetPerformanceState", dev);
    char buf[32];
    if (!dev_text(D(dev), "performance_state", buf, sizeof buf) || buf[0] != 'P')
        return NVML_ERROR_NOT_SUPPORTED;
    *p = atoi(buf + 1);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t dev, unsigned int *v)
{
    ENTER("nvmlDeviceGetPcieReplayCounter", dev);
    return uint_at(D(dev), "pci/replay_counter", 1, v);
}

/* Sum of the children of ecc_errors/<counter> whose name says (un)correctable. */
EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t dev, int type, int counter,
                                                unsigned long long *out)
{
    ENTER("nvmlDeviceGetTotalEccErrors", dev);
    struct fake_dev *d = D(dev);
    if (d->has_ecc_volatile && counter == NVML_VOLATILE_ECC && type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED) {
        *out = d->ecc_volatile;
        return NVML_SUCCESS;
    }
    char expr[160];
    snprintf(expr, sizeof expr, "ecc_errors/%s/*",
             counter == NVML_AGGREGATE_ECC ? "aggregate" : "volatile");
    xmlXPathContextPtr ctx = xmlXPathNewContext(d->doc);
    ctx->node = d->gpu;
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    unsigned long long sum = 0;
    int found = 0, bad = 0;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlNodePtr n = obj->nodesetval->nodeTab[i];
        const char *name = (const char *)n->name;
        int unc = strstr(name, "uncorrectable") != NULL;
        int cor = !unc && strstr(name, "correctable") != NULL;
        if ((type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED && !unc) ||
            (type == NVML_MEMORY_ERROR_TYPE_CORRECTED && !cor))
            continue;
        xmlChar *t = xmlNodeGetContent(n);
        char *end;
        unsigned long long v = strtoull((const char *)t, &end, 10);
        if (end == (char *)t)
            bad = 1;
        sum += v;
        found = 1;
        xmlFree(t);
    }
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
    if (!found || bad)
        return NVML_ERROR_NOT_SUPPORTED;
    *out = sum;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t dev, int cause, unsigned int *count,
                                              unsigned long long *addresses)
{
    ENTER("nvmlDeviceGetRetiredPages", dev);
    unsigned n;
    const char *expr = cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
                           ? "retired_pages/double_bit_retirement/retired_count"
                           : "retired_pages/multiple_single_bit_retirement/retired_count";
    if (uint_at(D(dev), expr, 1, &n) != NVML_SUCCESS)
        return NVML_ERROR_NOT_SUPPORTED;
    unsigned cap = *count;
    *count = n;
    if (n > cap)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    for (unsigned i = 0; addresses && i < n; i++)
        addresses[i] = 0x1000ULL * (i + 1);
    return NVML_SUCCESS;
}

static unsigned yes(struct fake_dev *d, const char *expr)
{
    char buf[32];
    return dev_text(d, expr, buf, sizeof buf) && strcmp(buf, "Yes") == 0;
}

EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t dev, unsigned int *corr,
                                              unsigned int *unc, unsigned int *pending,
                                              unsigned int *failed)
{
    ENTER("nvmlDeviceGetRemappedRows", dev);
    if (uint_at(D(dev), "remapped_rows/remapped_row_corr", 1, corr) != NVML_SUCCESS ||
        uint_at(D(dev), "remapped_rows/remapped_row_unc", 1, unc) != NVML_SUCCESS)
        return NVML_ERROR_NOT_SUPPORTED;
    *pending = yes(D(dev), "remapped_rows/remapped_row_pending");
    *failed = yes(D(dev), "remapped_rows/remapped_row_failure");
    return NVML_SUCCESS;
}

/* Throttle reasons from the "Active" children, whatever the schema calls them. */
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t dev,
                                                              unsigned long long *bits)
{
    ENTER("nvmlDeviceGetCurrentClocksThrottleReasons", dev);
    static const struct {
        const char *suffix;
        unsigned long long bit;
    } map[] = {
        { "gpu_idle", 0x1 },          { "applications_clocks_setting", 0x2 },
        { "sw_power_cap", 0x4 },      { "hw_slowdown", 0x8 },
        { "sync_boost", 0x10 },       { "sw_thermal_slowdown", 0x20 },
        { "hw_thermal_slowdown", 0x40 }, { "hw_power_brake_slowdown", 0x80 },
        { "display_clocks_setting", 0x100 },
    };
    struct fake_dev *d = D(dev);
    xmlXPathContextPtr ctx = xmlXPathNewContext(d->doc);
    ctx->node = d->gpu;
    xmlXPathObjectPtr obj =
        xmlXPathEvalExpression((const xmlChar *)"clocks_event_reasons/*|clocks_throttle_reasons/*",
                               ctx);
    unsigned long long v = 0;
    int any = 0;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlNodePtr n = obj->nodesetval->nodeTab[i];
        xmlChar *t = xmlNodeGetContent(n);
        any = 1;
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
            size_t ln = strlen((const char *)n->name), ls = strlen(map[k].suffix);
            if (ln > ls && strcmp((const char *)n->name + ln - ls, map[k].suffix) == 0 &&
                ((const char *)n->name)[ln - ls - 1] == '_' && strcmp((const char *)t, "Active") == 0)
                v |= map[k].bit;
        }
        xmlFree(t);
    }
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
    if (!any)
        return NVML_ERROR_NOT_SUPPORTED;
    *bits = v;
    return NVML_SUCCESS;
}

static nvmlReturn_t procs(struct fake_dev *d, char kind, unsigned int *count,
                          nvmlProcessInfo_t *infos)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(d->doc);
    ctx->node = d->gpu;
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)"processes/process_info", ctx);
    unsigned n = 0, cap = *count;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        char type[16] = "", pid[32] = "";
        text_at(d->doc, obj->nodesetval->nodeTab[i], "type", type, sizeof type);
        text_at(d->doc, obj->nodesetval->nodeTab[i], "pid", pid, sizeof pid);
        if (!strchr(type, kind))
            continue;
        if (infos && n < cap) {
            char mem[32] = "", gi[16] = "", ci[16] = "";
            xmlNodePtr node = obj->nodesetval->nodeTab[i];
            text_at(d->doc, node, "used_memory", mem, sizeof mem);
            text_at(d->doc, node, "gpu_instance_id", gi, sizeof gi);
            text_at(d->doc, node, "compute_instance_id", ci, sizeof ci);
            memset(&infos[n], 0, sizeof infos[n]);
            infos[n].pid = (unsigned)strtoul(pid, NULL, 10);
            /* "27391 MiB"; N/A is NVML_VALUE_NOT_AVAILABLE */
            char *end;
            unsigned long long mib = strtoull(mem, &end, 10);
            infos[n].usedGpuMemory = end != mem ? mib << 20 : ~0ULL;
            infos[n].gpuInstanceId = gi[0] >= '0' && gi[0] <= '9' ? (unsigned)strtoul(gi, NULL, 10) : 0xFFFFFFFFu;
            infos[n].computeInstanceId = ci[0] >= '0' && ci[0] <= '9' ? (unsigned)strtoul(ci, NULL, 10) : 0xFFFFFFFFu;
        }
        n++;
    }
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
    *count = n;
    return n > cap ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
                                                            nvmlProcessInfo_t *infos)
{
    ENTER("nvmlDeviceGetComputeRunningProcesses_v3", dev);
    return procs(D(dev), 'C', count, infos);
}

EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t dev,
                                                             unsigned int *count,
                                                             nvmlProcessInfo_t *infos)
{
    ENTER("nvmlDeviceGetGraphicsRunningProcesses_v3", dev);
    return procs(D(dev), 'G', count, infos);
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t dev, unsigned int *cur, unsigned int *pend)
{
    ENTER("nvmlDeviceGetMigMode", dev);
    if (dev_has_migs(D(dev))) {
        *cur = *pend = 1;
        return NVML_SUCCESS;
    }
    char c[32], p[32];
    if (!dev_text(D(dev), "mig_mode/current_mig", c, sizeof c) ||
        !dev_text(D(dev), "mig_mode/pending_mig", p, sizeof p) || strcmp(c, "N/A") == 0)
        return NVML_ERROR_NOT_SUPPORTED;
    *cur = strcmp(c, "Enabled") == 0;
    *pend = strcmp(p, "Enabled") == 0;
    return NVML_SUCCESS;
}

/* --- MIG ------------------------------------------------------------------------ */

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t dev, unsigned int *count)
{
    ENTER("nvmlDeviceGetMaxMigDeviceCount", dev);
    if (!dev_has_migs(D(dev)))
        return NVML_ERROR_NOT_SUPPORTED;
    *count = 7;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t dev, unsigned int k,
                                                        nvmlDevice_t *out)
{
    ENTER("nvmlDeviceGetMigDeviceHandleByIndex", dev);
    if (k >= FAKE_MIGS || !migs[D(dev) - devs][k].present)
        return NVML_ERROR_NOT_FOUND;
    *out = (nvmlDevice_t)&migs[D(dev) - devs][k];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t dev, unsigned int *id)
{
    MIG_ENTER("nvmlDeviceGetGpuInstanceId", dev, m);
    if (!m->has_ids)
        return NVML_ERROR_NOT_SUPPORTED;
    *id = m->gi;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t dev, unsigned int *id)
{
    MIG_ENTER("nvmlDeviceGetComputeInstanceId", dev, m);
    if (!m->has_ids)
        return NVML_ERROR_NOT_SUPPORTED;
    *id = m->ci;
    return NVML_SUCCESS;
}

/* The slices a profile name says: 3 of "3g.40gb"; 0 unknown. */
static unsigned profile_slices(const char *profile)
{
    unsigned n = 0;
    return sscanf(profile, "%ug.", &n) == 1 ? n : 0;
}

EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t dev, nvmlDeviceAttributes_t *a)
{
    MIG_ENTER("nvmlDeviceGetAttributes_v2", dev, m);
    if (!m->has_sm || !m->has_mem)
        return NVML_ERROR_NOT_SUPPORTED;
    memset(a, 0, sizeof *a);
    a->multiprocessorCount = m->sm;
    a->gpuInstanceSliceCount = a->computeInstanceSliceCount = profile_slices(m->profile);
    a->memorySizeMB = m->total_mib;
    return NVML_SUCCESS;
}

/* The MIG device of GPU D first naming profile number K (distinct names in
 * MIG device order), or NULL. */
static struct fake_mig *profile_row(struct fake_dev *d, unsigned k)
{
    struct fake_mig *row = migs[d - devs];
    unsigned seen = 0;
    for (int i = 0; i < FAKE_MIGS; i++) {
        if (!row[i].present || !row[i].profile[0])
            continue;
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= row[j].present && strcmp(row[j].profile, row[i].profile) == 0;
        if (!dup && seen++ == k)
            return &row[i];
    }
    return NULL;
}

static unsigned profile_id_of(struct fake_dev *d, const struct fake_mig *m)
{
    for (unsigned k = 0; k < FAKE_MIGS; k++) {
        struct fake_mig *p = profile_row(d, k);
        if (p && strcmp(p->profile, m->profile) == 0)
            return p->has_profile_id ? p->profile_id : 100 + k;
    }
    return ~0u;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t dev, unsigned int profile,
                                                         nvmlGpuInstanceProfileInfo_v2_t *info)
{
    ENTER("nvmlDeviceGetGpuInstanceProfileInfoV", dev);
    if (info->version != nvmlGpuInstanceProfileInfo_v2)
        return NVML_ERROR_INVALID_ARGUMENT;
    struct fake_mig *p = profile_row(D(dev), profile);
    if (!p)
        return NVML_ERROR_NOT_SUPPORTED;
    unsigned version = info->version;
    memset(info, 0, sizeof *info);
    info->version = version;
    info->id = profile_id_of(D(dev), p);
    info->sliceCount = profile_slices(p->profile);
    info->multiprocessorCount = p->sm;
    info->memorySizeMB = p->total_mib;
    snprintf(info->name, sizeof info->name, "MIG %s", p->profile);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t dev, unsigned int id,
                                                 nvmlGpuInstance_t *out)
{
    ENTER("nvmlDeviceGetGpuInstanceById", dev);
    for (int i = 0; i < FAKE_MIGS; i++) {
        struct fake_mig *m = &migs[D(dev) - devs][i];
        if (m->present && m->has_ids && m->gi == id) {
            *out = (nvmlGpuInstance_t)m;
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t inst, nvmlGpuInstanceInfo_t *info)
{
    struct fake_mig *m = MIG((nvmlDevice_t)inst);
    if (!loaded || !m)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(info, 0, sizeof *info);
    info->device = (nvmlDevice_t)m->parent;
    info->id = m->gi;
    info->profileId = profile_id_of(m->parent, m);
    return NVML_SUCCESS;
}

/* --- events ----------------------------------------------------------- */

struct nvmlEventSet_st {
    int unused;
};
static struct nvmlEventSet_st the_set;

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    *set = &the_set;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t dev, unsigned long long types,
                                             nvmlEventSet_t set)
{
    ENTER("nvmlDeviceRegisterEvents", dev);
    (void)set;
    if (!(types & nvmlEventTypeXidCriticalError))
        return NVML_ERROR_NOT_SUPPORTED;
    D(dev)->registered = 1;
    return NVML_SUCCESS;
}

struct xid_pick {
    struct fake_dev *dev;
    unsigned long long xid;
};

static void pick_xid(struct fake_dev *d, unsigned long long xid, int nth, void *arg)
{
    struct xid_pick *p = arg;
    if (nth == xid_delivered && !p->dev && d->registered) {
        p->dev = d;
        p->xid = xid;
    }
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data,
                                        unsigned int timeout_ms)
{
    (void)set;
    maybe_hang("nvmlEventSetWait_v2");
    for (unsigned waited = 0;; waited += 20) {
        struct xid_pick p = { 0 };
        pthread_mutex_lock(&lock);
        read_ctl(pick_xid, &p);
        if (p.dev)
            xid_delivered++;
        pthread_mutex_unlock(&lock);
        if (p.dev) {
            memset(data, 0, sizeof *data);
            data->device = (nvmlDevice_t)p.dev;
            data->eventType = nvmlEventTypeXidCriticalError;
            data->eventData = p.xid;
            data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
            return NVML_SUCCESS;
        }
        if (waited >= timeout_ms)
            return NVML_ERROR_TIMEOUT;
        sleep_ms(20);
    }
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    (void)set;
    return NVML_SUCCESS;
}
