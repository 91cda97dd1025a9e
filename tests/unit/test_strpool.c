/* test_strpool.c -- the string pool (util/strpool.c) and the container
 * record's string setters built on it (model/containers.c): copies that stay
 * valid as the pool grows, long strings, clear, take-over between pools, and
 * values cut exactly as the fixed buffers of before cut them. */
#include "pna_autoconf.h"
#include "util/strpool.h"
#include "model/containers.h"
#include "util/fileio.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static void test_copies_stay(void)
{
    struct pna_strpool pool = PNA_STRPOOL_INIT;
    const char *kept[5000];
    char buf[64];
    for (int i = 0; i < 5000; i++) {   /* many blocks' worth */
        snprintf(buf, sizeof buf, "container-%d", i);
        kept[i] = pna_strpool_add(&pool, buf);
        CHECK(kept[i] != NULL && kept[i] != buf);
    }
    int wrong = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof buf, "container-%d", i);
        wrong += strcmp(kept[i], buf) != 0;
    }
    CHECK_INT(wrong, 0);
    CHECK_STR(pna_strpool_add(&pool, NULL), "");
    CHECK_STR(pna_strpool_add(&pool, ""), "");
    pna_strpool_free(&pool);
    CHECK(pool.blocks == NULL);
}

static void test_long_and_clear(void)
{
    struct pna_strpool pool = PNA_STRPOOL_INIT;
    static char big[40000];
    memset(big, 'x', sizeof big - 1);
    const char *a = pna_strpool_add(&pool, "before");
    const char *b = pna_strpool_add(&pool, big);      /* over a block: a block of its own */
    const char *c = pna_strpool_add(&pool, "after");  /* still in the first block */
    CHECK_STR(a, "before");
    CHECK(b && strlen(b) == sizeof big - 1);
    CHECK_STR(c, "after");
    CHECK(c == a + strlen("before") + 1);
    pna_strpool_clear(&pool);
    CHECK(pool.blocks != NULL);   /* a block kept for the next use */
    const char *d = pna_strpool_add(&pool, "again");
    CHECK_STR(d, "again");
    pna_strpool_free(&pool);
}

static void test_take(void)
{
    struct pna_strpool to = PNA_STRPOOL_INIT, from = PNA_STRPOOL_INIT;
    const char *x = pna_strpool_add(&to, "mine");
    const char *y = pna_strpool_add(&from, "theirs");
    pna_strpool_take(&to, &from);
    CHECK(from.blocks == NULL);
    CHECK_STR(x, "mine");
    CHECK_STR(y, "theirs");
    pna_strpool_take(&to, &from);   /* nothing to take */
    CHECK_STR(pna_strpool_add(&to, "more"), "more");
    pna_strpool_free(&to);
    pna_strpool_free(&from);
}

/* A value over a field's cap is cut where the char array of that size cut it. */
static void test_container_caps(void)
{
    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_container *c = pna_container_set_add(&set);
    CHECK_STR(c->id, "");
    CHECK_STR(c->cgroup_path, "");
    char longname[400], expect[PNA_CTR_NAME_CAP];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    pna_strlcpy(expect, longname, sizeof expect);
    CHECK_INT(pna_container_set_text(&set, &c->name, longname, PNA_CTR_NAME_CAP), 0);
    CHECK_STR(c->name, expect);
    CHECK_INT((int)strlen(c->name), PNA_CTR_NAME_CAP - 1);
    /* Display copies: control characters shown as '?', UTF-8 never split. */
    CHECK_INT(pna_container_set_display(&set, &c->pod_name, "a\tb\xc3\xa9", PNA_CTR_POD_NAME_CAP), 0);
    CHECK_STR(c->pod_name, "a?b\xc3\xa9");
    CHECK_INT(pna_container_set_display(&set, &c->pod_uid, "\xc3\xa9\xc3\xa9", 4), 0);
    CHECK_STR(c->pod_uid, "\xc3\xa9");
    CHECK_INT(pna_container_set_text(&set, &c->image, NULL, PNA_CTR_IMAGE_CAP), 0);
    CHECK_STR(c->image, "");
    /* Rows copied by the merge keep their strings: the pool moves with them. */
    struct pna_container *t = pna_container_set_add(&set);
    t->id = c->id;
    pna_container_set_text(&set, &c->id, "same", PNA_CTR_ID_CAP);
    pna_container_set_text(&set, &t->id, "same", PNA_CTR_ID_CAP);
    pna_container_set_text(&set, &t->cgroup_path, "/k8s/same", PNA_CTR_CGROUP_CAP);
    c->runtime = PNA_RUNTIME_DOCKER;
    t->runtime = PNA_RUNTIME_CONTAINERD;
    CHECK_INT(pna_container_set_sort(&set), 0);
    CHECK_INT(pna_container_set_merge_runtimes(&set), 0);
    CHECK_INT((int)set.count, 1);
    CHECK_STR(set.rows[0].cgroup_path, "/k8s/same");
    CHECK_STR(set.rows[0].name, expect);
    CHECK(!set.strings_lost);
    pna_container_set_clear(&set);
    CHECK_INT((int)set.count, 0);
    pna_container_set_free(&set);
}

int main(void)
{
    test_copies_stay();
    test_long_and_clear();
    test_take();
    test_container_caps();
    UNIT_END();
}
