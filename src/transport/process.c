/* transport/process.c -- run a command and capture its output against a
 * deadline (see process.h).
 *
 * The command is started with posix_spawn (no shell, safe from a threaded
 * process), read through a pipe with poll() against one deadline, and killed
 * with its whole process group when the deadline passes: a wedged driver makes
 * nvidia-smi hang in the kernel, and that must cost the poller nothing but the
 * deadline. */
#include "pna_autoconf.h"
#include "transport/process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int spawn_child(const char *const argv[], int out_fd, pid_t *pid, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* Its own process group, so a timeout kills what it started too; default
     * signal dispositions and an empty mask whatever the agent's threads use. */
    sigset_t none, deflt;
    sigemptyset(&none);
    sigemptyset(&deflt);
    sigaddset(&deflt, SIGPIPE);
    sigaddset(&deflt, SIGCHLD);
    sigaddset(&deflt, SIGTERM);
    sigaddset(&deflt, SIGINT);
    sigaddset(&deflt, SIGHUP);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &deflt);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    int rc = strchr(argv[0], '/')
                 ? posix_spawn(pid, argv[0], &fa, &attr, (char *const *)argv, environ)
                 : posix_spawnp(pid, argv[0], &fa, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    return 0;
}

/* Killed children that had not died yet (a task in uninterruptible sleep in
 * the driver dies only when it leaves the kernel).  They are reaped at later
 * runs instead of blocking this one. */
static pthread_mutex_t zombie_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t zombies[32];
static size_t nzombies;

static void reap_zombies(void)
{
    pthread_mutex_lock(&zombie_lock);
    for (size_t i = 0; i < nzombies;) {
        pid_t r = waitpid(zombies[i], NULL, WNOHANG);
        if (r == zombies[i] || (r < 0 && errno == ECHILD))
            zombies[i] = zombies[--nzombies];
        else
            i++;
    }
    pthread_mutex_unlock(&zombie_lock);
}

static void keep_zombie(pid_t pid)
{
    pthread_mutex_lock(&zombie_lock);
    if (nzombies < sizeof zombies / sizeof zombies[0])
        zombies[nzombies++] = pid;
    pthread_mutex_unlock(&zombie_lock);
}

/* Reap PID before DEADLINE; kills its group first when KILL_FIRST is set or
 * the deadline passes.  Returns the wait status, or -1 when unknown. */
static int reap(pid_t pid, int64_t deadline, bool kill_first, bool *killed)
{
    int status = 0;
    if (kill_first) {
        kill(-pid, SIGKILL);
        *killed = true;
        /* a killed child normally goes at once: give it a moment */
        deadline = mono_ms() + 200;
    }
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1; /* SIGCHLD ignored by the process: status unknown */
        if (mono_ms() >= deadline) {
            if (*killed) {
                keep_zombie(pid);
                return -1;
            }
            kill(-pid, SIGKILL);
            *killed = true;
            deadline = mono_ms() + 200;
        }
        struct timespec ts = { 0, 2 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

int pna_run_capture(const char *const argv[], unsigned timeout_ms, size_t max_bytes, char **out,
                    size_t *len, char *err, size_t errlen)
{
    reap_zombies();
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid;
    if (spawn_child(argv, pfd[1], &pid, err, errlen) != 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    close(pfd[1]);

    int64_t deadline = mono_ms() + timeout_ms;
    size_t cap = 65536, got = 0;
    char *buf = malloc(cap + 1);
    bool timed_out = false, too_big = false, failed = !buf;
    while (!failed) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = { .fd = pfd[0], .events = POLLIN };
        int pr = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        if (got == cap) {
            if (cap >= max_bytes) {
                too_big = true;
                break;
            }
            /* Not util/array.h: the capture is bounded by MAX_BYTES (more is an
             * error) and keeps a byte for the NUL. */
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *n = realloc(buf, ncap + 1);
            if (!n) {
                failed = true;
                break;
            }
            buf = n;
            cap = ncap;
        }
        ssize_t n = read(pfd[0], buf + got, cap - got);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            failed = true;
            break;
        }
        got += (size_t)n;
    }
    close(pfd[0]);
    bool killed = false;
    int status = reap(pid, deadline, timed_out || too_big || failed, &killed);
    if (!timed_out && killed && !too_big && !failed)
        timed_out = true; /* closed its output but did not exit in time */

    if (timed_out) {
        snprintf(err, errlen, "%s did not finish within %u ms (killed)", argv[0], timeout_ms);
    } else if (too_big) {
        snprintf(err, errlen, "%s wrote more than %zu bytes", argv[0], max_bytes);
    } else if (failed) {
        snprintf(err, errlen, "reading the output of %s failed", argv[0]);
    } else if (status != -1 && WIFSIGNALED(status)) {
        snprintf(err, errlen, "%s killed by signal %d", argv[0], WTERMSIG(status));
    } else if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "%s exited with status %d", argv[0], WEXITSTATUS(status));
    } else {
        buf[got] = '\0';
        *out = buf;
        if (len)
            *len = got;
        return 0;
    }
    free(buf);
    return -1;
}
