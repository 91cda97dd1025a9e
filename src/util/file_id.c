/* util/file_id.c -- file identities for caches (see file_id.h). */
#include "pna_autoconf.h"
#include "util/file_id.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

void pna_file_id_of(const struct stat *st, struct pna_file_id *id)
{
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

int pna_file_identity_at(int dirfd, const char *name, struct pna_file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (fstatat(dirfd, name, &st, 0) < 0)
        return -errno;
    pna_file_id_of(&st, id);
    return 0;
}

bool pna_file_id_settled(const struct pna_file_id *id, int64_t now_ms)
{
    /* The modification time: what a rewrite of the content within one tick
     * would leave as it was.  (A change of rights alone moves the change
     * time, which the identity compares anyway.) */
    return now_ms - id->mtime_ns / 1000000 >= PNA_FILE_RACY_MS;
}

bool pna_file_id_equal(const struct pna_file_id *a, const struct pna_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}
