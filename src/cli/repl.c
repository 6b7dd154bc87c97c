/* repl.c - statements from standard input.  On a terminal: a prompt,
 * GNU readline line editing, history in ~/.adcalc_history and completion
 * of function and variable names; otherwise the same statements are read
 * without a prompt, so `echo 'x=2; x^2' | adcalc` prints 4.
 *
 * The engine's session (ad_session_run) keeps every definition and
 * assignment that worked on one recording, so names and functions carry
 * over, reassignment stays SSA and a statement costs what it records, not
 * the session.  Every expression statement prints its value (and gradient
 * with :grad on) at the current point.  Commands: :at, :grad, :mode,
 * :nondiff, :tape, :help, :quit.  Errors never end it; out of memory and
 * a failed read do. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "repl.h"
#include "buf.h"
#include "report.h"
#include "results.h"
#include "run.h"
#ifdef HAVE_READLINE
#include <readline/readline.h>
#include <readline/history.h>
#endif

typedef struct {
    cli_options o;           /* the session's options: point, policy, mode... */
    ad_session *sess;       /* the definitions and assignments so far */
    int line;               /* input line number of the statement read now */
    ad_tape *t, *last;      /* the working tape, and the last one evaluated */
    ad_work *w, *lastw;
    int have_last;
    char *lastsrc;             /* its statement, for the dump header */
    size_t lastsrclen;
    int status;             /* first error's exit status */
    int fatal;              /* out of memory or a failed read: stop */
    char **warned;          /* point variables assigned, warned about once */
    size_t nwarned;
} session;

static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 256;
        while (nc < *len + n + 1) nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb) return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

/* an error: the first one's status is the stream's; out of memory (or a
 * failed read) ends the session, whose status is then 5 */
static void fail(session *S, ad_errclass e)
{
    if (!S->status) S->status = cli_exit_code(e);
    if (e == AD_E_IO) S->fatal = 1;
}

/* a command's mistake (the session's own: it does not point to --help) */
static void command_error(session *S, const char *fmt, const char *a, const char *b)
{
    cli_error(&S->o, &(cli_where){.session = 1}, AD_E_USAGE, fmt, a, b);
    fail(S, AD_E_USAGE);
}

static void free_bindings(cli_bindings *b)
{
    for (size_t i = 0; i < b->n; i++) free(b->names[i]);
    free(b->names);
    free(b->values);
    memset(b, 0, sizeof *b);
}

/* ":at x=2,y=3": set (or replace) these values, checked as -at checks them */
static void cmd_at(session *S, const char *arg)
{
    cli_bindings tmp = {0};
    ad_diag d;
    ad_errclass e = cli_add_bindings("-at", arg, &tmp, &d);
    if (e) {
        cli_report(&S->o, NULL, &d);
        fail(S, e);
        free_bindings(&tmp);
        return;
    }
    cli_bindings *at = &S->o.at;
    for (size_t i = 0; i < tmp.n; i++) {
        size_t j = 0;
        while (j < at->n && strcmp(at->names[j], tmp.names[i]) != 0) j++;
        if (j == at->n) {
            char **nn = realloc(at->names, (at->n + 1) * sizeof *nn);
            if (nn) at->names = nn;
            double *nv = nn ? realloc(at->values, (at->n + 1) * sizeof *nv) : NULL;
            if (nv) at->values = nv;
            if (!nn || !nv) {
                cli_error(&S->o, NULL, AD_E_IO, "out of memory");
                fail(S, AD_E_IO);
                break;
            }
            at->names[at->n++] = tmp.names[i];
            at->cap = at->n;
            tmp.names[i] = NULL;
        }
        at->values[j] = tmp.values[i];
    }
    free_bindings(&tmp);
    if (!S->fatal && ad_session_point(S->sess, (const char *const *)at->names, at->values, at->n) < 0) {
        cli_error(&S->o, NULL, AD_E_IO, "out of memory");
        fail(S, AD_E_IO);
    }
}

static int word(const char *s, const char *w)
{
    size_t n = strlen(w);
    return strncmp(s, w, n) == 0 && (s[n] == 0 || isspace((unsigned char)s[n]));
}

static const char *skipws(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    return s;
}

static void help(void)
{
    puts("Statements: expressions (printed), name = expr, f(u, v) = expr; ';' or a new line\n"
         "separates them, '#' starts a comment.\n"
         "Commands:\n"
         "  :at x=2,y=3               set the point\n"
         "  :grad on|off              print the gradient after each value\n"
         "  :mode forward|reverse     the engine for gradients\n"
         "  :nondiff strict|zero-subgrad  the policy at kinks and singular points\n"
         "  :tape                     show the tape of the last expression\n"
         "  :help                     this text\n"
         "  :quit                     leave (so does end of input)\n"
         "Functions and options: man adcalc");
}

/* a command line; 1 to quit */
static int command(session *S, const char *line)
{
    const char *a = line + 1;
    if (word(a, "quit") || word(a, "q") || word(a, "exit")) return 1;
    if (word(a, "help")) { help(); return 0; }
    if (word(a, "at")) { cmd_at(S, skipws(a + 2)); return 0; }
    const char *arg = NULL;
    if (word(a, "grad")) {
        arg = skipws(a + 4);
        if (!strcmp(arg, "on") || !*arg) S->o.grad = 1;
        else if (!strcmp(arg, "off")) S->o.grad = 0;
        else goto bad;
        return 0;
    }
    if (word(a, "mode")) {
        arg = skipws(a + 4);
        if (!strcmp(arg, "forward")) S->o.mode = AD_MODE_FORWARD;
        else if (!strcmp(arg, "reverse")) S->o.mode = AD_MODE_REVERSE;
        else goto bad;
        return 0;
    }
    if (word(a, "nondiff")) {
        arg = skipws(a + 7);
        if (!strcmp(arg, "strict")) S->o.policy = AD_STRICT;
        else if (!strcmp(arg, "zero-subgrad")) S->o.policy = AD_ZERO_SUBGRAD;
        else goto bad;
        return 0;
    }
    if (word(a, "tape")) {
        if (!S->have_last) {
            command_error(S, ":tape: no expression evaluated yet%s%s", "", "");
            return 0;
        }
        ad_dump(stdout, S->last, S->lastw, S->o.policy, AD_DUMP_TEXT,
                S->lastsrc ? S->lastsrc : "", S->lastsrclen);
        return 0;
    }
    command_error(S, "unknown command '%s' (:help lists them)%s", line, "");
    return 0;
bad:
    command_error(S, "%s: unexpected value '%s'", line, arg);
    return 0;
}

/* an assignment to a variable of the point (x = 5 with :at x=2) hides the
 * point's value from the statements after it: said once per name */
static void shadowing(session *S, const char *stmt, size_t n)
{
    size_t pos = 0;
    int line = 1, col = 1;
    ad_stmt st;
    if (!ad_next_stmt(stmt, n, &pos, &line, &col, &st) || st.kind != AD_STMT_ASSIGN) return;
    const char *name = stmt + st.name_off;
    size_t len = st.name_len, k = 0;
    while (k < S->o.at.n && !(strlen(S->o.at.names[k]) == len && memcmp(S->o.at.names[k], name, len) == 0)) k++;
    if (k == S->o.at.n) return;
    for (size_t j = 0; j < S->nwarned; j++)
        if (strcmp(S->warned[j], S->o.at.names[k]) == 0) return;
    char **nw = realloc(S->warned, (S->nwarned + 1) * sizeof *nw);
    if (nw) S->warned = nw;
    if (nw && (nw[S->nwarned] = strdup(S->o.at.names[k]))) S->nwarned++;
    fprintf(stderr, "adcalc: warning: '%s' now names the value assigned here: the statements after it see that, "
                    "not the point's %s (:at)\n", S->o.at.names[k], S->o.at.names[k]);
}

/* runs one statement (stmt[0..n), starting at input line first, column
 * col of the input line line[0..line_len)); errors in the statement are
 * numbered by input line, errors in the session's earlier statements by
 * the session's own lines ("<session>") */
static void run_statement(session *S, const char *stmt, size_t n, int first, const char *line,
                          size_t line_len, int col)
{
    ad_stmt_kind kind;
    size_t unbound;
    cli_point pt;
    ad_diag d;
    memset(&pt, 0, sizeof pt);
    ad_errclass e = ad_session_run(S->sess, stmt, n, &kind, S->t, &unbound, &d);
    if (e == AD_E_NAME && unbound != (size_t)-1) e = cli_unbound(&S->o, S->t, unbound, &d);
    if (!e && kind == AD_STMT_EXPR) e = cli_derive_tape(&S->o, 1, S->t, S->w, &pt, &d);
    if (e) {
        int kept;
        cli_source src = {.name = "<stdin>"};
        src.src = ad_session_text(S->sess, &src.len, &kept);
        if (d.line > kept) {
            /* the statement's first line is shown as the input line it came from */
            src.echo = line;
            src.echo_len = line_len;
            src.echo_at = kept + 1;
            src.col_shift = col - 1;
            src.line_shift = first - (kept + 1);
        } else {
            src.name = "<session>";
        }
        cli_report(&S->o, &(cli_where){.src = &src}, &d);
        fail(S, e);
    } else if (kind == AD_STMT_ASSIGN) {
        shadowing(S, stmt, n);
    } else if (kind == AD_STMT_EXPR) {
        /* JSON's "expr" is the statement */
        cli_source shown = {.name = "<stdin>", .src = stmt, .len = n};
        cli_buf b = {0};
        cli_print_answer(&b, &S->o, &shown, 1, 0, 0, &pt.answer);
        if (b.nomem) {
            cli_error(&S->o, NULL, AD_E_IO, "out of memory");
            fail(S, AD_E_IO);
        }
        cli_buf_flush(&b, stdout);
        cli_buf_free(&b);
        ad_tape *tt = S->last; S->last = S->t; S->t = tt;
        ad_work *ww = S->lastw; S->lastw = S->w; S->w = ww;
        S->have_last = 1;
        free(S->lastsrc);
        S->lastsrclen = n;
        S->lastsrc = malloc(n + 1);
        if (S->lastsrc) {
            memcpy(S->lastsrc, stmt, n);
            S->lastsrc[n] = 0;
        } else {
            /* :tape would list it without its source */
            S->lastsrclen = 0;
            S->have_last = 0;
            cli_error(&S->o, NULL, AD_E_IO, "out of memory");
            fail(S, AD_E_IO);
        }
    }
    cli_point_free(&pt);
    fflush(stdout);
}

/* one complete chunk of input: statements */
static void statements(session *S, const char *chunk, size_t n)
{
    size_t pos = 0;
    int line = 1, col = 1;
    ad_stmt st;
    while (ad_next_stmt(chunk, n, &pos, &line, &col, &st)) {
        if (st.kind == AD_STMT_EMPTY) continue;
        /* the input line the statement starts on */
        const char *ls = chunk + st.off;
        while (ls > chunk && ls[-1] != '\n') ls--;
        const char *le = memchr(ls, '\n', (size_t)(chunk + n - ls));
        size_t ll = le ? (size_t)(le - ls) : (size_t)(chunk + n - ls);
        run_statement(S, chunk + st.off, st.len, S->line + st.line - 1, ls, ll, st.col);
        if (S->fatal) return;
    }
}

/* 1 when the text so far ends inside parentheses or a block, or after an
 * operator */
static int incomplete(const char *s, size_t n)
{
    int depth = 0, braces = 0;
    char last = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#') { while (i < n && s[i] != '\n') i++; continue; }
        if (s[i] == '(') depth++;
        else if (s[i] == ')') depth--;
        else if (s[i] == '{') braces++;
        else if (s[i] == '}') braces--;
        if (!isspace((unsigned char)s[i])) last = s[i];
    }
    return depth > 0 || braces > 0 || (last && strchr("+-*/^,=(<>&|!", last));
}

#ifdef HAVE_READLINE
/* completion: function names, then the session's variables */
static const session *complete_session;
static char *completion(const char *text, int state)
{
    static size_t i, j;
    size_t n = strlen(text);
    if (!state) i = j = 0;
    const char *f;
    while ((f = ad_function(i, NULL)) != NULL) {
        i++;
        if (strncmp(f, text, n) == 0) return strdup(f);
    }
    while (complete_session && j < complete_session->o.at.n) {
        const char *v = complete_session->o.at.names[j++];
        if (strncmp(v, text, n) == 0) return strdup(v);
    }
    return NULL;
}
static char **complete(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1;
    return rl_completion_matches(text, completion);
}
#endif

/* the next line of input, without its newline, and its length (NUL
 * bytes and all); NULL at the end, and NULL with *err set when reading
 * failed (errno) */
static char *read_line(int interactive, const char *prompt, size_t *len, int *err)
{
    *err = 0;
#ifdef HAVE_READLINE
    if (interactive) {
        char *l = readline(prompt);
        if (l && *l) add_history(l);
        if (l) *len = strlen(l);
        return l;
    }
#else
    if (interactive) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
#endif
    char *buf = NULL;
    size_t cap = 0;
    errno = 0;
    ssize_t n = getline(&buf, &cap, stdin);
    if (n < 0 || ferror(stdin)) {
        /* a line the failure cut short is not a line of the input */
        if (ferror(stdin) || errno == ENOMEM) *err = errno ? errno : EIO;
        free(buf);
        return NULL;
    }
    if (n > 0 && buf[n - 1] == '\n') buf[--n] = 0;
    *len = (size_t)n;
    return buf;
}

/* the session's own state: a copy of the point (which :at changes), the
 * tapes and workspaces; 0, or -1 when out of memory (nothing to free) */
static int session_open(session *S, const cli_options *opts)
{
    memset(S, 0, sizeof *S);
    S->o = *opts;
    S->o.session = 1;   /* hints name the session's commands (:at) */
    size_t nat = opts->at.n;
    memset(&S->o.at, 0, sizeof S->o.at);
    S->o.at.names = calloc(nat ? nat : 1, sizeof *S->o.at.names);
    S->o.at.values = malloc((nat ? nat : 1) * sizeof *S->o.at.values);
    int ok = S->o.at.names && S->o.at.values;
    for (size_t i = 0; ok && i < nat; i++, S->o.at.n++) {
        S->o.at.values[i] = opts->at.values[i];
        ok = (S->o.at.names[i] = strdup(opts->at.names[i])) != NULL;
    }
    S->o.at.cap = S->o.at.n;
    S->sess = ad_session_new();
    if (S->sess) ad_session_set_limit(S->sess, (size_t)opts->max_nodes);
    if (S->sess) ad_session_set_iterations(S->sess, (size_t)opts->max_iterations);
    ok = ok && S->sess && ad_session_point(S->sess, (const char *const *)S->o.at.names, S->o.at.values, S->o.at.n) == 0;
    S->t = ad_tape_new();
    S->last = ad_tape_new();
    S->w = ad_work_new();
    S->lastw = ad_work_new();
    S->o.src = NULL;
    S->o.nsrc = 0;
    S->o.adjoint = NULL;   /* --seed and --wrt stay: the options own them */
    return ok && S->t && S->last && S->w && S->lastw ? 0 : -1;
}

static void session_close(session *S)
{
    ad_session_free(S->sess);
    free(S->lastsrc);
    free_bindings(&S->o.at);
    ad_tape_free(S->t);
    ad_tape_free(S->last);
    ad_work_free(S->w);
    ad_work_free(S->lastw);
    for (size_t j = 0; j < S->nwarned; j++) free(S->warned[j]);
    free(S->warned);
}

/* reads lines into chunks of whole statements and runs them, and the
 * commands, until the end of the input, :quit or a fatal error */
static void read_statements(session *S, int interactive)
{
    char *chunk = NULL;
    size_t clen = 0, ccap = 0;
    int lineno = 0, start = 1;
    for (;;) {
        size_t llen = 0;
        int err;
        char *l = read_line(interactive, clen ? "...> " : "adcalc> ", &llen, &err);
        if (!l && err) {
            /* a failed read is an error, never the end of the statements */
            cli_error(&S->o, NULL, AD_E_IO, "cannot read '<stdin>': %s", strerror(err));
            fail(S, AD_E_IO);
            break;
        }
        if (!l) {
            if (interactive) putchar('\n');   /* end the prompt's line */
            fflush(stdout);
            break;
        }
        lineno++;
        if (!clen) start = lineno;
        const char *p = skipws(l);
        if (!clen && *p == ':') {
            int quit = command(S, p);
            free(l);
            fflush(stdout);
            if (quit || S->fatal) break;
            continue;
        }
        if (append(&chunk, &clen, &ccap, l, llen) < 0 || append(&chunk, &clen, &ccap, "\n", 1) < 0) {
            free(l);
            cli_error(&S->o, NULL, AD_E_IO, "out of memory");
            fail(S, AD_E_IO);
            break;
        }
        free(l);
        if (incomplete(chunk, clen)) continue;
        S->line = start;
        statements(S, chunk, clen);
        clen = 0;
        if (S->fatal) break;
    }
    if (clen && !S->fatal) {
        S->line = start;
        statements(S, chunk, clen);
    }
    free(chunk);
}

int cli_repl(const cli_options *opts, int interactive)
{
    session S;
    if (session_open(&S, opts) < 0) {
        cli_error(opts, NULL, AD_E_IO, "out of memory");
        session_close(&S);
        return cli_exit_code(AD_E_IO);
    }
#ifdef HAVE_READLINE
    char hist[4096] = "";
    if (interactive) {
        const char *home = getenv("HOME");
        if (home) snprintf(hist, sizeof hist, "%s/.adcalc_history", home);
        if (*hist) read_history(hist);
        complete_session = &S;
        rl_attempted_completion_function = complete;
        rl_readline_name = "adcalc";
    }
#endif
    read_statements(&S, interactive);
#ifdef HAVE_READLINE
    if (interactive && *hist) {
        int err = write_history(hist);
        if (err) fprintf(stderr, "adcalc: warning: cannot save the history in '%s': %s\n", hist, strerror(err));
    }
#endif
    int status = S.fatal ? cli_exit_code(AD_E_IO) : interactive ? 0 : S.status;
    session_close(&S);
    return status;
}
