/* line.c - the lines a session reads (line.h).  Control-C on a terminal
 * drops the line being typed; the session decides what else goes with it
 * (the statement the line continues).  A statement already running
 * finishes first: the handler only notes the signal.  readline's API
 * keeps its state in globals and has no context argument, so the
 * completion in use is one of this file's.
 *
 * GNU readline is loaded (dlopen) when a session starts on a terminal, and
 * only then: linked into adcalc, even statically, its key maps and tables
 * cost every run -- a one-shot -e too -- 1300 relocations and six pages
 * copied on write, a twentieth of adcalc's start-up.  What this file uses
 * of it is reached through the table rl, filled by load_readline(); where
 * the library cannot be loaded, the session reads plain lines and says
 * why once. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "line.h"
#ifdef HAVE_READLINE
#include <dlfcn.h>
#include <readline/readline.h>
#include <readline/history.h>
#endif

static volatile sig_atomic_t interrupted;   /* 1: Control-C; 2: readline started a new line after it */
static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

#ifdef HAVE_READLINE
/* the library to load: its soname as configure read it from the
 * libreadline.so the build found, else the usual name for the header's
 * version (libreadline.so.8 for readline 8.x) */
#ifdef ADCALC_READLINE_SONAME
#define RL_LIBRARY ADCALC_READLINE_SONAME
#else
#define RL_NAME2(v) "libreadline.so." #v
#define RL_NAME(v) RL_NAME2(v)
#define RL_LIBRARY RL_NAME(RL_VERSION_MAJOR)
#endif

/* every function and variable of readline this file uses: rl.NAME points
 * to it (a variable's address, so *rl.rl_line_buffer is the line) */
#define RL_SYMBOLS(X)                                                                            \
    X(readline) X(add_history) X(read_history) X(write_history) X(rl_replace_line) X(rl_crlf)    \
    X(rl_set_prompt) X(rl_on_new_line) X(rl_redisplay) X(rl_completion_matches) X(rl_line_buffer) \
    X(rl_attempted_completion_over) X(rl_signal_event_hook) X(rl_attempted_completion_function)  \
    X(rl_completion_word_break_hook) X(rl_readline_name)
static struct {
#define RL_FIELD(name) __typeof__(name) *name;
    RL_SYMBOLS(RL_FIELD)
#undef RL_FIELD
    int loaded;
} rl;

/* loads readline once: NULL, or why it cannot be used (a copy: dlclose
 * frees dlerror's message) */
static const char *load_readline(void)
{
    static char why[512];
    if (rl.loaded) return NULL;
    void *h = dlopen(RL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : RL_LIBRARY ": cannot be loaded");
        return why;
    }
#define RL_LOAD(name)                                                                            \
    if (!(rl.name = (__typeof__(rl.name))dlsym(h, #name))) {                                    \
        const char *e = dlerror();                                                               \
        snprintf(why, sizeof why, "%s", e ? e : RL_LIBRARY ": " #name " is missing");            \
        memset(&rl, 0, sizeof rl);                                                               \
        dlclose(h);                                                                              \
        return why;                                                                              \
    }
    RL_SYMBOLS(RL_LOAD)
#undef RL_LOAD
    rl.loaded = 1;
    return NULL;
}

static const cli_completion *completion;

/* called by readline when a signal interrupted its read, after it put the
 * terminal back and echoed ^C: an empty line under a fresh prompt */
static int after_interrupt(void)
{
    if (interrupted == 1) {
        interrupted = 2;
        rl.rl_replace_line("", 0);
        rl.rl_crlf();
        rl.rl_set_prompt("adcalc> ");
        rl.rl_on_new_line();
        rl.rl_redisplay();
    }
    return 0;
}

/* the characters a word to complete starts after: blanks alone in a file
 * name, else operators and brackets too (2*co<Tab>) */
static char *word_breaks(void)
{
    static char blanks[] = " \t\n", operators[] = " \t\n+-*/^%(),;=<>!&|{}[]:#\"'";
    return completion->file_word(completion->ctx, *rl.rl_line_buffer) ? blanks : operators;
}

static const char *cand[4096];   /* the candidates of this completion */
static size_t ncand;
static char *next_candidate(const char *text, int state)
{
    static size_t i;
    size_t n = strlen(text);
    if (!state) i = 0;
    while (i < ncand) {
        const char *c = cand[i++];
        if (strncmp(c, text, n) == 0) return strdup(c);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    long n = completion->candidates(completion->ctx, *rl.rl_line_buffer, (size_t)start, cand,
                                    sizeof cand / sizeof *cand);
    *rl.rl_attempted_completion_over = n >= 0;   /* -1: readline's file names */
    if (n < 0) return NULL;
    ncand = (size_t)n;
    return rl.rl_completion_matches(text, next_candidate);
}
#endif

void cli_lines_open(cli_lines *L, int interactive, const cli_completion *c)
{
    memset(L, 0, sizeof *L);
    L->interactive = interactive;
    if (!interactive) return;
    struct sigaction ctrl_c;
    memset(&ctrl_c, 0, sizeof ctrl_c);
    ctrl_c.sa_handler = on_interrupt;
    sigemptyset(&ctrl_c.sa_mask);
#ifdef HAVE_READLINE
    const char *why = load_readline();
    if (why) fprintf(stderr, "adcalc: note: no line editing: %s\n", why);
    L->editing = !why;
#endif
    if (L->editing) {
#ifdef HAVE_READLINE
        ctrl_c.sa_flags = SA_RESTART;   /* readline's own handler interrupts its read */
        *rl.rl_signal_event_hook = after_interrupt;
        const char *home = getenv("HOME");
        if (home && (size_t)snprintf(L->history, sizeof L->history, "%s/.adcalc_history", home) >= sizeof L->history)
            L->history[0] = 0;   /* a path too long to hold: no history */
        if (L->history[0]) rl.read_history(L->history);
        completion = c;
        *rl.rl_attempted_completion_function = complete;
        *rl.rl_completion_word_break_hook = word_breaks;
        *rl.rl_readline_name = "adcalc";
#endif
    }
    (void)c;
    sigaction(SIGINT, &ctrl_c, &L->was);
}

char *cli_lines_read(cli_lines *L, const char *prompt, size_t *len, int *err, int *cancelled)
{
    *err = 0;
    *cancelled = 0;
    interrupted = 0;
#ifdef HAVE_READLINE
    if (L->editing) {
        char *l = rl.readline(prompt);
        if (l && interrupted == 1) {
            /* Enter came before readline started a new line: this is
             * the line Control-C dropped */
            free(l);
            *cancelled = 1;
            return NULL;
        }
        *cancelled = l && interrupted;   /* a new line, typed after Control-C */
        if (l && *l) rl.add_history(l);
        if (l) *len = strlen(l);
        return l;
    }
#endif
    if (L->interactive) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    char *buf = NULL;
    size_t cap = 0;
    errno = 0;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n < 0 || ferror(stdin)) {
        free(buf);
        if (L->interactive && interrupted) {   /* the line is dropped, the session goes on */
            clearerr(stdin);
            putchar('\n');
            *cancelled = 1;
            return NULL;
        }
        /* a line the failure cut short is not a line of the input */
        if (ferror(stdin) || errno == ENOMEM) *err = errno ? errno : EIO;
        return NULL;
    }
    if (n > 0 && buf[n - 1] == '\n') buf[--n] = 0;
    *len = (size_t)n;
    return buf;
}

void cli_lines_close(cli_lines *L)
{
    if (!L->interactive) return;
    sigaction(SIGINT, &L->was, NULL);
#ifdef HAVE_READLINE
    if (L->editing && L->history[0]) {
        int err = rl.write_history(L->history);
        if (err) fprintf(stderr, "adcalc: warning: cannot save the history in '%s': %s\n", L->history, strerror(err));
    }
    completion = NULL;
#endif
}
