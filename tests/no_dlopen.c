/* no_dlopen.c - an LD_PRELOAD shim under which no library can be loaded
 * with dlopen, as on a machine without libreadline: a session on a
 * terminal then reads plain lines and says why (tests/repl.test). */
#include <stddef.h>

void *dlopen(const char *file, int mode)
{
    (void)file;
    (void)mode;
    return NULL;
}

char *dlerror(void)
{
    static char why[] = "libreadline.so: cannot open shared object file (tests/no_dlopen.so)";
    return why;
}
