/* watchers/dir_watch.c -- inotify on a set of directories, on the event
 * loop (see dir_watch.h). */
#include "pna_autoconf.h"
#include "watchers/dir_watch.h"
#include "core/event_loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* Entries made, removed, renamed, written or given other rights: what can
 * change a bundle's files. */
#define DIR_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | \
                    IN_ATTRIB | IN_ONLYDIR)

struct dirwatch {
    int wd;                  /* -1: the directory went, and its watch with it */
    char *path;
};

struct pna_dir_watch {
    struct pna_loop *loop;
    pna_dir_change_fn on_change;
    void *arg;
    int ifd;
    uint64_t reg;            /* the loop's registration of IFD */

    pthread_mutex_t lock;    /* guards what follows */
    struct dirwatch *dirs;   /* sorted by path */
    size_t ndirs;
    bool complete;           /* every directory of the last set is watched */
    atomic_uint_fast64_t events;
};

static struct dirwatch *find_wd(struct pna_dir_watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd)
            return &w->dirs[i];
    return NULL;
}

/* Lock held: the events of one read.  Returns whether a watched directory
 * changed. */
static bool take_events(struct pna_dir_watch *w, const char *buf, ssize_t n)
{
    bool changed = false;
    for (const char *p = buf; p < buf + n;) {
        const struct inotify_event *ev = (const struct inotify_event *)p;
        p += sizeof *ev + ev->len;
        /* Events were lost: treat it as "everything may have changed". */
        struct dirwatch *d = ev->mask & IN_Q_OVERFLOW ? NULL : find_wd(w, ev->wd);
        if (!d && !(ev->mask & IN_Q_OVERFLOW))
            continue;
        changed = true;
        atomic_fetch_add(&w->events, 1);
        /* The directory went away: no watch any more.  One made again at
         * the same path is watched at the next set. */
        if (d && (ev->mask & IN_IGNORED))
            d->wd = -1;
    }
    return changed;
}

/* Loop thread: the inotify descriptor is readable. */
static void on_ready(void *arg, int fd, unsigned ready)
{
    (void)ready;
    struct pna_dir_watch *w = arg;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool changed = false;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        pthread_mutex_lock(&w->lock);
        changed |= take_events(w, buf, n);
        pthread_mutex_unlock(&w->lock);
    }
    if (changed && w->on_change)
        w->on_change(w->arg);
}

struct pna_dir_watch *pna_dir_watch_new(struct pna_loop *loop, pna_dir_change_fn on_change,
                                        void *arg, char *err, size_t errlen)
{
    struct pna_dir_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->loop = loop;
    w->on_change = on_change;
    w->arg = arg;
    w->complete = true;
    pthread_mutex_init(&w->lock, NULL);
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->ifd >= 0)
        w->reg = pna_loop_add_fd(loop, w->ifd, PNA_LOOP_READ, on_ready, w);
    if (w->ifd < 0 || !w->reg) {
        snprintf(err, errlen, "inotify: %s", strerror(errno));
        pna_dir_watch_free(w);
        return NULL;
    }
    return w;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lock held: a watch on PATH into *D; false when it cannot be had. */
static bool watch_dir(struct pna_dir_watch *w, const char *path, struct dirwatch *d)
{
    int wd = inotify_add_watch(w->ifd, path, DIR_EVENTS);
    char *copy = wd >= 0 ? strdup(path) : NULL;
    if (!copy) {
        if (wd >= 0)
            inotify_rm_watch(w->ifd, wd);
        return false;
    }
    d->wd = wd;
    d->path = copy;
    return true;
}

int pna_dir_watch_set(struct pna_dir_watch *w, const char *const *dirs, size_t n)
{
    /* Merge the sorted new list with the sorted old one: directories still
     * wanted keep their watch (removing and re-adding would open a window in
     * which a container's arrival is missed). */
    char **sorted = n ? malloc(n * sizeof *sorted) : NULL;
    struct dirwatch *nd = n ? calloc(n, sizeof *nd) : NULL;
    if (n && (!sorted || !nd)) {
        free(sorted);
        free(nd);
        return -1;
    }
    if (n) {
        memcpy(sorted, dirs, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_str);
    }
    pthread_mutex_lock(&w->lock);
    size_t i = 0, j = 0, k = 0, unwatched = 0;
    int added = 0;
    while (i < w->ndirs || j < n) {
        int c = i >= w->ndirs ? 1 : j >= n ? -1 : strcmp(w->dirs[i].path, sorted[j]);
        if (c < 0) {
            if (w->dirs[i].wd >= 0)
                inotify_rm_watch(w->ifd, w->dirs[i].wd);
            free(w->dirs[i].path);
            i++;
        } else if (c == 0 && w->dirs[i].wd >= 0) {
            nd[k++] = w->dirs[i++];
            j++;
        } else {
            if (c == 0) {   /* its watch was lost: watched again below */
                free(w->dirs[i].path);
                i++;
            }
            if (k > 0 && strcmp(nd[k - 1].path, sorted[j]) == 0) {
                j++;
                continue;
            }
            if (watch_dir(w, sorted[j], &nd[k])) {
                k++;
                added++;
            } else {
                unwatched++;
            }
            j++;
        }
    }
    free(w->dirs);
    w->dirs = nd;
    w->ndirs = k;
    w->complete = unwatched == 0;
    pthread_mutex_unlock(&w->lock);
    free(sorted);
    return added;
}

uint64_t pna_dir_watch_events(struct pna_dir_watch *w, bool *complete)
{
    pthread_mutex_lock(&w->lock);
    bool all = w->complete;
    for (size_t i = 0; all && i < w->ndirs; i++)
        all = w->dirs[i].wd >= 0;
    pthread_mutex_unlock(&w->lock);
    *complete = all;
    return atomic_load(&w->events);
}

/* With no callback running: off the loop. */
static void leave_loop(void *arg)
{
    struct pna_dir_watch *w = arg;
    pna_loop_remove_fd(w->loop, w->reg);
    w->reg = 0;
}

void pna_dir_watch_free(struct pna_dir_watch *w)
{
    if (!w)
        return;
    if (w->reg)
        pna_loop_call(w->loop, leave_loop, w);
    for (size_t i = 0; i < w->ndirs; i++)
        free(w->dirs[i].path);
    free(w->dirs);
    if (w->ifd >= 0)
        close(w->ifd);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
