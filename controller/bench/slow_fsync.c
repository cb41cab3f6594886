/* An fsync that takes as long as a slow SD card's: LD_PRELOAD this library and set
 * DIABLOTIN_FSYNC_DELAY_MS; fsync and fdatasync sleep that long, then do the real call.
 * Built and loaded by `diablotin bench stages --fsync-delay MS` (controller/bench/slowdisk.py). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void slow(void) {
    const char *ms = getenv("DIABLOTIN_FSYNC_DELAY_MS");
    long delay = ms ? atol(ms) : 0;
    if (delay > 0) {
        struct timespec t = {delay / 1000, (delay % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    slow();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    slow();
    return real(fd);
}
