/* sources/kubernetes/dra.c -- a DRA claim's device resolved through the CDI
 * specs and sysfs (see dra.h). */
#include "pna_autoconf.h"
#include "sources/kubernetes/dra.h"
#include "sources/containers/cdi.h"
#include "sources/containers/devmap.h"
#include "util/fileio.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* The first entry of DIR that is not "." or "..", into NAME; false if none. */
static bool first_entry(const char *dir, char *name, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    const struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)))
        if (e->d_name[0] != '.' && strlen(e->d_name) < cap) {
            memcpy(name, e->d_name, strlen(e->d_name) + 1);
            found = true;
        }
    closedir(d);
    return found;
}

bool pna_podres_rdma_of(const struct pna_roots *roots, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    if (!name[0] || strchr(name, '/') || strstr(name, ".."))
        return false;
    char dir[600];
    if (pna_path(dir, sizeof dir, roots->sysfs, "/bus/pci/devices/%s/infiniband", name) == 0 &&
        first_entry(dir, out, cap))
        return true;
    if (pna_path(dir, sizeof dir, roots->sysfs, "/class/net/%s/device/infiniband", name) == 0 &&
        first_entry(dir, out, cap))
        return true;
    out[0] = '\0';
    return false;
}

/* "0000-3b-00-2" (a PCI address in a DNS label) as "0000:3b:00.2"; false
 * when NAME is not one. */
static bool dashed_pci(const char *name, char *out, size_t cap)
{
    unsigned dom, bus, dev, fn;
    char tail;
    if (strlen(name) != 12 || strspn(name, "0123456789abcdef-") != 12 ||
        sscanf(name, "%4x-%2x-%2x-%1x%c", &dom, &bus, &dev, &fn, &tail) != 4 || dev > 31 || fn > 7)
        return false;
    snprintf(out, cap, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
    return true;
}

/* The row's nodes from CDI node N, unless one with its path is there. */
static void add_node(struct pna_podres_dra *r, const struct pna_cdi_node *n)
{
    if (r->n_nodes >= PNA_PODRES_DRA_NODES || strlen(n->path) >= sizeof r->nodes[0].path ||
        strlen(n->host_path) >= sizeof r->nodes[0].host_path)
        return;
    for (size_t i = 0; i < r->n_nodes; i++)
        if (strcmp(r->nodes[i].path, n->path) == 0)
            return;
    struct pna_podres_node *o = &r->nodes[r->n_nodes++];
    memset(o, 0, sizeof *o);
    memcpy(o->path, n->path, strlen(n->path) + 1);
    memcpy(o->host_path, n->host_path, strlen(n->host_path) + 1);
    o->type = n->type;
    o->has_numbers = n->has_numbers;
    o->major = n->major;
    o->minor = n->minor;
}

/* Resolve D's CDI names: the nodes of every one a spec defines, and the
 * first one with nodes (else the first defined) as its cdi_device.  The index
 * of the first name no spec defines in *MISSING (-1 none). */
static void resolve_cdi(const struct pna_cdi_registry *cdi, struct pna_podres_dra *d,
                        int *missing)
{
    *missing = -1;
    const char *first_defined = NULL;
    for (uint8_t i = 0; i < d->n_cdi; i++) {
        const struct pna_cdi_node *nodes[PNA_CDI_MAX_NODES];
        int n = cdi ? pna_cdi_resolve(cdi, d->cdi[i], nodes, PNA_CDI_MAX_NODES) : -1;
        if (n < 0) {
            if (*missing < 0)
                *missing = i;
            continue;
        }
        if (!first_defined)
            first_defined = d->cdi[i];
        if (n > 0 && !d->cdi_device[0])
            pna_strlcpy(d->cdi_device, d->cdi[i], sizeof d->cdi_device);
        for (int k = 0; k < n; k++)
            add_node(d, nodes[k]);
    }
    if (!d->cdi_device[0] && first_defined)
        pna_strlcpy(d->cdi_device, first_defined, sizeof d->cdi_device);
}

/* What the row's nodes open, as the container device table says it: the
 * first GPU's PCI address into gpu_key, the first RDMA device. */
static void node_owners(const struct pna_roots *roots, struct pna_podres_row *r)
{
    for (size_t i = 0; i < r->dra->n_nodes; i++) {
        const struct pna_podres_node *n = &r->dra->nodes[i];
        struct pna_container_device dev;
        memset(&dev, 0, sizeof dev);
        snprintf(dev.path, sizeof dev.path, "%s", n->host_path[0] ? n->host_path : n->path);
        dev.type = n->type;
        dev.has_numbers = n->has_numbers;
        dev.major = n->major;
        dev.minor = n->minor;
        dev.unit = -1;
        pna_devmap_classify(&dev);
        pna_devmap_owner(roots, &dev);
        if (dev.gpu_index && !r->gpu_key[0])
            snprintf(r->gpu_key, sizeof r->gpu_key, "%04x:%02x:%02x.%x", dev.gpu_index >> 16,
                     (dev.gpu_index >> 8) & 0xff, (dev.gpu_index >> 3) & 0x1f, dev.gpu_index & 7);
        if (dev.rdma_dev[0] && !r->rdma_dev[0])
            pna_strlcpy(r->rdma_dev, dev.rdma_dev, sizeof r->rdma_dev);
    }
}

/* A NIC driver's device: its name as a network interface or PCI address. */
static void name_owner(const struct pna_roots *roots, struct pna_podres_row *r)
{
    char pci[16];
    if (r->rdma_dev[0] || r->gpu_key[0])
        return;
    if (!pna_podres_rdma_of(roots, r->dra->device, r->rdma_dev, sizeof r->rdma_dev) &&
        dashed_pci(r->dra->device, pci, sizeof pci))
        pna_podres_rdma_of(roots, pci, r->rdma_dev, sizeof r->rdma_dev);
}

bool pna_dra_resolve(const struct pna_roots *roots, const struct pna_cdi_registry *cdi,
                     struct pna_podres_row *r, char *why, size_t whylen)
{
    struct pna_podres_dra *d = r->dra;
    int missing;
    resolve_cdi(cdi, d, &missing);
    node_owners(roots, r);
    name_owner(roots, r);
    if (d->n_nodes || r->rdma_dev[0] || missing < 0)
        return true;   /* resolved, or nothing to resolve by: a plain row */
    snprintf(why, whylen, "%.40s/%.40s/%.40s: no CDI spec defines %.100s", d->driver, d->pool,
             d->device, d->cdi[missing]);
    return false;
}
