/* repl.c - a session: statements from standard input, one at a time, on
 * a terminal (line.c reads the lines: prompt, editing, history, Tab,
 * Control-C) or from a stream, so `echo 'x=2; x^2' | adcalc` prints 4.
 *
 * The engine's session (ad_session_run) keeps every definition and
 * assignment that worked on one recording, so names and functions carry
 * over, reassignment stays SSA and a statement costs what it records, not
 * the session.  Every expression statement prints its result at the
 * current point, as the settings ask (:grad, :wrt, :seed, :hessian,
 * :order, :mode, :nondiff, :precision, :format: the options of the same
 * name, read by options.c).  Commands: :at, :load, :vars, :tape, :help,
 * :quit.  Libraries (--lib, :load, the start-up file) run as statements.
 * Errors never end it; out of memory and a failed read do. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "repl.h"
#include "buf.h"
#include "line.h"
#include "libs.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "names.h"

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
    int interactive;        /* a terminal: a failed expression's record is not repeated on stdout */
    char *header;           /* --format tsv --header: the last header line printed */
    char *names;            /* Tab: the session's names, NUL-separated */
    char words[256];        /* Tab: a setting's words */
    char **warned;          /* point variables assigned, warned about once */
    size_t nwarned;
    const char *srcname;    /* where the statements come from: "<stdin>", a library */
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

/* ":at x=2,y=3": set (or replace) these values, checked as -at checks
 * them.  A variable given again keeps its place in the point, with all of
 * its new value: a vector given anew is its new elements only (x=[4,5]
 * after x=[1,2,3] leaves no x[3]).  Merged by sorted names, so that a
 * point of 10^6 elements costs n log n, not n^2 */
static void cmd_at(session *S, const char *arg)
{
    cli_bindings tmp = {0};
    ad_diag d;
    ad_errclass e = cli_add_bindings(":at", arg, &tmp, &d);
    if (e) {
        cli_report(&S->o, &(cli_where){.session = 1}, &d);
        fail(S, e);
        cli_bindings_free(&tmp);
        return;
    }
    cli_bindings *at = &S->o.at;
    cli_nameset vars = {0};
    size_t most = at->n + tmp.n;
    char **names = malloc((most ? most : 1) * sizeof *names);
    double *values = malloc((most ? most : 1) * sizeof *values);
    unsigned char *placed = calloc(tmp.n ? tmp.n : 1, 1);
    if (!names || !values || !placed || cli_nameset_vars(&vars, (const char *const *)tmp.names, tmp.n) < 0) {
        free(names);
        free(values);
        free(placed);
        cli_bindings_free(&tmp);
        cli_error(&S->o, NULL, AD_E_IO, "out of memory");
        fail(S, AD_E_IO);
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < at->n; i++) {
        size_t f = cli_nameset_find(&vars, at->names[i], cli_var_len(at->names[i]));
        if (f == (size_t)-1) {   /* not given again */
            names[m] = at->names[i];
            values[m++] = at->values[i];
            continue;
        }
        free(at->names[i]);
        if (placed[f]) continue;
        /* the new value, in the old one's place: its elements follow each other */
        const char *var = tmp.names[f];
        size_t vl = cli_var_len(var);
        for (size_t j = f; j < tmp.n && (j == f || (cli_var_len(tmp.names[j]) == vl && !memcmp(tmp.names[j], var, vl)));
             j++) {
            placed[j] = 1;
            names[m] = tmp.names[j];
            values[m++] = tmp.values[j];
            tmp.names[j] = NULL;
        }
    }
    for (size_t j = 0; j < tmp.n; j++) {   /* new variables, at the end */
        if (placed[j]) continue;
        names[m] = tmp.names[j];
        values[m++] = tmp.values[j];
        tmp.names[j] = NULL;
    }
    free(placed);
    cli_nameset_free(&vars);
    cli_bindings_free(&tmp);
    free(at->names);
    free(at->values);
    at->names = names;
    at->values = values;
    at->n = at->cap = m;
    /* (the REPL reads the point's vectors from the session's tape, not
     * from at->vecs, which described the -at it started with) */
    for (size_t v = 0; v < at->nvecs; v++) free(at->vecs[v].name);
    at->nvecs = 0;
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

/* the session's settings: each is the command-line option of that name,
 * read as the command line reads it; "off" forgets it */
static const struct {
    const char *cmd, *option, *args, *help;
} settings[] = {
    {"grad", "--grad", "on|off", "print the gradient after each value"},
    {"wrt", "--wrt", "x,y|off", "the gradient with respect to these only"},
    {"seed", "--seed", "x=1,y=0|off", "the directional derivative along this direction"},
    {"hessian", "--hessian", "on|off", "print the Hessian (with :seed, H*v)"},
    {"order", "--order", "K|off", "the Taylor derivatives f', ..., f^(K)"},
    {"mode", "--mode", "forward|reverse|auto", "the engine for gradients"},
    {"nondiff", "--nondiff", "strict|zero-subgrad", "the policy at kinks and singular points"},
    {"precision", "--precision", "N|off", "N significant digits (off: the shortest exact)"},
    {"format", "--format", "text|json|tsv", "how results are printed"},
};
/* the session's own commands */
static const struct {
    const char *cmd, *args, *help;
} commands[] = {
    {"at", "x=2,y=3", "set the point"},
    {"load", "FILE", "run FILE's definitions and assignments"},
    {"vars", "", "the point, the functions and the names defined"},
    {"tape", "", "show the tape of the last expression"},
    {"help", "", "this text"},
    {"quit", "", "leave (so does end of input; also :q, :exit)"},
};

static void help(void)
{
    puts("Statements: expressions (printed), name = expr, f(u, v) = expr; ';' or a new line\n"
         "separates them, '#' starts a comment.\n"
         "Commands:");
    char head[64];
    for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
        snprintf(head, sizeof head, ":%s %s", commands[k].cmd, commands[k].args);
        printf("  %-30s%s\n", head, commands[k].help);
    }
    puts("Settings (read as the options of the same name; :NAME off forgets one):");
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++) {
        snprintf(head, sizeof head, ":%s %s", settings[k].cmd, settings[k].args);
        printf("  %-30s%s\n", head, settings[k].help);
    }
    puts("Tab completes functions, names, variables, commands and their values.\n"
         "Functions and options: man adcalc");
}

/* :NAME VALUE - a setting; :hessian and :order replace each other */
static void cmd_setting(session *S, size_t k, const char *arg)
{
    const char *opt = settings[k].option;
    char label[32];
    snprintf(label, sizeof label, ":%s", settings[k].cmd);
    int flag = !strcmp(settings[k].args, "on|off");
    const char *value = arg;
    if (!strcmp(arg, "off")) value = NULL;
    else if (flag && (!strcmp(arg, "on") || !*arg)) value = "";
    else if (flag) {
        command_error(S, "%s: expected on or off, got '%s'", label, arg);
        return;
    } else if (!*arg) {
        command_error(S, "%s: expected a value (%s)", label, settings[k].args);
        return;
    }
    ad_diag d;
    ad_errclass e = cli_option_set(&S->o, opt, label, value, &d);
    if (!e && value && !strcmp(opt, "--hessian")) e = cli_option_set(&S->o, "--order", label, NULL, &d);
    if (!e && value && !strcmp(opt, "--order")) e = cli_option_set(&S->o, "--hessian", label, NULL, &d);
    if (e) {
        cli_report(&S->o, &(cli_where){.session = 1}, &d);
        fail(S, e);
    }
}

static void load(session *S, const char *path);
static void vars(session *S);

/* a command line; 1 to quit */
static int command(session *S, const char *line)
{
    const char *a = line + 1;
    if (word(a, "quit") || word(a, "q") || word(a, "exit")) return 1;
    if (word(a, "help")) { help(); return 0; }
    if (word(a, "at")) { cmd_at(S, skipws(a + 2)); return 0; }
    if (word(a, "load")) { load(S, skipws(a + 4)); return 0; }
    if (word(a, "vars")) { vars(S); return 0; }
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++)
        if (word(a, settings[k].cmd)) {
            cmd_setting(S, k, skipws(a + strlen(settings[k].cmd)));
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
}

/* an assignment to a variable of the point (x = 5 with :at x=2) hides the
 * point's value from the statements after it: said once per name.  A
 * vector of the point (:at x=[1,2,3]) is its elements x[1], x[2], ... in
 * the point: x = ... and x[k] = ... hide it too */
static void shadow_name(session *S, const char *name, size_t len)
{
    size_t k = 0;
    for (; k < S->o.at.n; k++) {
        const char *at = S->o.at.names[k];
        if (strncmp(at, name, len) == 0 && (at[len] == 0 || at[len] == '[')) break;
    }
    if (k == S->o.at.n) return;
    for (size_t j = 0; j < S->nwarned; j++)
        if (strlen(S->warned[j]) == len && memcmp(S->warned[j], name, len) == 0) return;
    char **nw = realloc(S->warned, (S->nwarned + 1) * sizeof *nw);
    if (nw) S->warned = nw;
    char *copy = nw ? strndup(name, len) : NULL;
    if (!copy) {
        cli_error(&S->o, NULL, AD_E_IO, "out of memory");
        fail(S, AD_E_IO);
        return;
    }
    S->warned[S->nwarned++] = copy;
    fprintf(stderr, "adcalc: warning: '%s' now names the value assigned here: the statements after it see that, "
                    "not the point's %s (:at)\n", copy, copy);
}

/* the statement's assignments, those in its blocks too (if, while, for:
 * each { } group is a list of statements), without recursion: a list of
 * the spans still to read */
static void shadowing(session *S, const char *stmt, size_t n)
{
    typedef struct { const char *s; size_t n; } span;
    span *todo = malloc(16 * sizeof *todo);
    size_t ntodo = 0, cap = 16;
    int nomem = !todo;
    if (todo) todo[ntodo++] = (span){stmt, n};
    while (ntodo) {
        span sp = todo[--ntodo];
        size_t pos = 0;
        int line = 1, col = 1;
        ad_stmt st;
        while (ad_next_stmt(sp.s, sp.n, &pos, &line, &col, &st)) {
            if (st.kind == AD_STMT_ASSIGN) shadow_name(S, sp.s + st.name_off, st.name_len);
            if (st.kind != AD_STMT_IF && st.kind != AD_STMT_WHILE && st.kind != AD_STMT_FOR) continue;
            const char *s = sp.s + st.off;
            size_t open = 0, depth = 0;
            for (size_t i = 0; i < st.len; i++) {
                if (s[i] == '#') {
                    while (i + 1 < st.len && s[i + 1] != '\n') i++;
                } else if (s[i] == '{' && depth++ == 0) {
                    open = i + 1;
                } else if (s[i] == '}' && depth && --depth == 0) {
                    if (ntodo == cap) {
                        span *nt = realloc(todo, 2 * cap * sizeof *nt);
                        if (!nt) {
                            nomem = 1;
                            break;
                        }
                        todo = nt;
                        cap *= 2;
                    }
                    todo[ntodo++] = (span){s + open, i - open};
                }
            }
        }
    }
    free(todo);
    if (nomem) {
        cli_error(&S->o, NULL, AD_E_IO, "out of memory");
        fail(S, AD_E_IO);
    }
}

/* writes b out (or says it could not be made) and frees it */
static void print(session *S, cli_buf *b)
{
    if (b->nomem) {
        cli_error(&S->o, NULL, AD_E_IO, "out of memory");
        fail(S, AD_E_IO);
    } else {
        cli_buf_flush(b, stdout);
    }
    cli_buf_free(b);
}

/* --format tsv --header: the names of the fields before a result whose
 * fields differ from the last ones named (the first, and after a setting
 * changed them) */
static void header(session *S, cli_buf *b, const cli_point *pt)
{
    const ad_plan *plan = pt->answer.plan;
    cli_buf h = {0};
    cli_print_tsv_header(&h, &S->o, ad_plan_layout(plan), &(cli_columns){plan, NULL, NULL});
    cli_buf_putc(&h, 0);
    if (h.nomem) {
        b->nomem = 1;
    } else if (!S->header || strcmp(S->header, h.p) != 0) {
        cli_buf_put(b, h.p, h.len - 1);
        free(S->header);
        S->header = h.p;   /* kept: the buffer is NUL-terminated text */
        h.p = NULL;
    }
    cli_buf_free(&h);
}

/* the point's vectors (its names x[1] .. x[m] in a row, as :at x=[...]
 * gives them) on the statement's tape t, at their lengths now (a tape
 * kept from a longer x would print d/dx[1] ... apart), so that the
 * printers group their columns as they group -at's (shape.h): 0, or -1
 * when out of memory */
static int point_vectors(const session *S, ad_tape *t)
{
    for (size_t i = 0; i < S->o.at.n; i++) {
        const char *name = S->o.at.names[i];
        size_t base, k;
        if (cli_element(name, strlen(name), &base, &k) && (k == 1 || k > ad_tape_vector_len(t, name, base)) &&
            ad_tape_set_vector(t, name, base, k) < 0)
            return -1;
    }
    return 0;
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
    ad_diag dd;
    ad_errclass de = ad_session_dropped(S->sess, &dd);
    if (de) {   /* a kept statement failed at the new point: said, then the statement's own result */
        cli_report(&S->o, NULL, &dd);
        fail(S, de);
    }
    if (e == AD_E_NAME && unbound != (size_t)-1) e = cli_unbound(&S->o, S->t, unbound, &d);
    if (!e && kind == AD_STMT_EXPR && point_vectors(S, S->t) < 0) e = ad_diag_set(&d, AD_E_IO, 0, 0, "out of memory");
    /* --jacobian: the expression's outputs (a vector's elements) each get
     * their derivatives; else its value must be a number for what asks
     * for one (--grad, --hessian, ...), as with -e */
    int joint = S->o.jacobian;
    cli_source shown = {.name = "this expression", .src = stmt, .len = n};
    if (!e && kind == AD_STMT_EXPR && ((e = cli_check_settings(&S->o, &d)) ||
                                       (e = cli_check_values(&S->o, &shown, 1, S->t, joint, &d)))) {
        int kept;
        size_t len;
        ad_session_text(S->sess, &len, &kept);
        d.line = kept + 1;   /* at the statement */
        d.col = 1;
    }
    if (!e && kind == AD_STMT_EXPR) e = cli_derive_tape(&S->o, 1, S->t, S->w, &pt, &d);
    shown.name = S->srcname;   /* JSON's "expr" is the statement */
    if (e) {
        int kept;
        cli_source src = {.name = S->srcname};
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
        if (kind == AD_STMT_EXPR && !S->interactive && !S->fatal) {
            /* a stream keeps every expression's place on stdout, as -e does */
            cli_buf b = {0};
            cli_print_failure(&b, &S->o, &shown, 1, 1, joint, 0, &src, &d);
            print(S, &b);
        }
    } else if (kind == AD_STMT_ASSIGN || kind == AD_STMT_IF || kind == AD_STMT_WHILE || kind == AD_STMT_FOR) {
        shadowing(S, stmt, n);
    } else if (kind == AD_STMT_EXPR) {
        cli_buf b = {0};
        if (S->o.format == CLI_FMT_TSV && S->o.header) header(S, &b, &pt);
        cli_print_answer(&b, &S->o, &shown, 1, joint, 0, &pt.answer);
        print(S, &b);
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

/* a library's statements (--lib, :load, the start-up file) run as if
 * typed, their errors named by the file's name and lines */
static void run_library(session *S, const char *name, const char *text, size_t len)
{
    ad_diag d;
    ad_errclass e = cli_lib_statements(text, len, &d);
    if (e) {
        cli_source src = {.name = name, .src = text, .len = len};
        cli_report(&S->o, &(cli_where){.src = &src}, &d);
        fail(S, e);
        return;
    }
    const char *was = S->srcname;
    S->srcname = name;
    S->line = 1;
    statements(S, text, len);
    S->srcname = was;
}

static void load(session *S, const char *path)
{
    if (!*path) {
        command_error(S, ":load: expected a file name%s%s", "", "");
        return;
    }
    if (!strcmp(path, "-")) {
        command_error(S, ":load: '-' would be the session's own input: name a file%s%s", "", "");
        return;
    }
    char *text;
    size_t len;
    ad_diag d;
    ad_errclass e = cli_read_file(path, &text, &len, &d);
    if (e) {
        /* a file that cannot be read is the command's mistake, not the session's end */
        d.cls = strcmp(d.msg, "out of memory") == 0 ? AD_E_IO : AD_E_USAGE;
        cli_report(&S->o, &(cli_where){.session = 1}, &d);
        fail(S, d.cls);
        return;
    }
    run_library(S, path, text, len);
    free(text);
}

/* the kept statements' definitions, by name and then by place (qsort has
 * no context argument: the text is the one of the :vars running) */
static const char *vars_text;
static int name_cmp(const ad_stmt *a, const ad_stmt *b)
{
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(vars_text + a->name_off, vars_text + b->name_off, n);
    return c ? c : a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}
static int by_name(const void *pa, const void *pb)
{
    const ad_stmt *a = pa, *b = pb;
    int c = name_cmp(a, b);
    return c ? c : a->off < b->off ? -1 : a->off > b->off;
}
static int by_place(const void *pa, const void *pb)
{
    const ad_stmt *a = pa, *b = pb;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* :vars - the point, then each function and name the session defines, as
 * its last definition's statement, in the order they were made */
static void vars(session *S)
{
    cli_buf b = {0};
    char num[40];
    cli_buf_puts(&b, "point:");
    for (size_t i = 0; i < S->o.at.n; i++)
        cli_buf_printf(&b, "%s %s = %s", i ? "," : "", S->o.at.names[i],
                       ad_fmt_number(num, sizeof num, S->o.at.values[i], S->o.precision));
    cli_buf_puts(&b, S->o.at.n ? "\n" : " none (:at x=2 sets one)\n");
    size_t len, pos = 0, n = 0, cap = 0;
    int kept, line = 1, col = 1;
    const char *text = ad_session_text(S->sess, &len, &kept);
    const char *end = text;   /* the kept statements are its first kept lines */
    for (int l = 0; l < kept && end < text + len; l++) {
        const char *nl = memchr(end, '\n', (size_t)(text + len - end));
        end = nl ? nl + 1 : text + len;
    }
    ad_stmt st, *defs = NULL;
    int nomem = 0;
    while (!nomem && ad_next_stmt(text, (size_t)(end - text), &pos, &line, &col, &st)) {
        if (st.kind != AD_STMT_DEF && st.kind != AD_STMT_ASSIGN) continue;
        if (n == cap) {
            ad_stmt *nd = realloc(defs, (cap = cap ? 2 * cap : 16) * sizeof *nd);
            if (!nd) { nomem = 1; break; }
            defs = nd;
        }
        defs[n++] = st;
    }
    vars_text = text;
    if (n) qsort(defs, n, sizeof *defs, by_name);
    size_t m = 0;   /* the last of each name */
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || name_cmp(&defs[i], &defs[i + 1]))
            defs[m++] = defs[i];
    if (m) qsort(defs, m, sizeof *defs, by_place);
    for (size_t i = 0; i < m; i++)
        cli_buf_printf(&b, "%s %.*s\n", defs[i].kind == AD_STMT_DEF ? "function:" : "name:    ", (int)defs[i].len,
                       text + defs[i].off);
    free(defs);
    if (b.nomem || nomem) {
        cli_error(&S->o, NULL, AD_E_IO, "out of memory");
        fail(S, AD_E_IO);
    } else {
        cli_buf_flush(&b, stdout);
    }
    cli_buf_free(&b);
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

/* ---- what Tab completes (line.c asks) ---- */

/* a file name after :load */
static int file_word(void *ctx, const char *line)
{
    (void)ctx;
    line = skipws(line);
    return strncmp(line, ":load", 5) == 0 && isspace((unsigned char)line[5]);
}

/* the '|'-separated words of list into out (not placeholders such as K,
 * N or x,y), copied into store */
static size_t add_words(const char **out, size_t n, size_t max, char *store, size_t storecap, const char *list)
{
    size_t used = 0;
    while (*list && n < max) {
        size_t len = strcspn(list, "|");
        if (len > 1 && !memchr(list, ',', len) && !memchr(list, '=', len) && used + len + 1 <= storecap) {
            memcpy(store + used, list, len);
            store[used + len] = 0;
            out[n++] = store + used;
            used += len + 1;
        }
        list += len + (list[len] == '|');
    }
    return n;
}

/* after ':' at the line's start, a command; after a command, a setting's
 * words, the point's variables (:at, :wrt, :seed) or a file (:load);
 * elsewhere the functions, the point's variables and the session's own
 * functions and names */
static long candidates(void *ctx, const char *line, size_t start, const char **out, size_t max)
{
    session *S = ctx;
    const char *p = skipws(line);
    size_t n = 0;
    if (p < line + start && *p == ':') {
        const char *cmd = p + 1;
        size_t clen = strcspn(cmd, " \t");
        if (cmd + clen >= line + start) {   /* the command itself */
            for (size_t k = 0; k < sizeof commands / sizeof *commands && n < max; k++) out[n++] = commands[k].cmd;
            for (size_t k = 0; k < sizeof settings / sizeof *settings && n < max; k++) out[n++] = settings[k].cmd;
            return (long)n;
        }
        if (clen == 4 && !strncmp(cmd, "load", 4)) return -1;
        for (size_t k = 0; k < sizeof settings / sizeof *settings; k++)
            if (strlen(settings[k].cmd) == clen && !strncmp(cmd, settings[k].cmd, clen))
                n = add_words(out, n, max, S->words, sizeof S->words, settings[k].args);
        if ((clen == 2 && !strncmp(cmd, "at", 2)) || (clen == 3 && !strncmp(cmd, "wrt", 3)) ||
            (clen == 4 && !strncmp(cmd, "seed", 4)))
            for (size_t j = 0; j < S->o.at.n && n < max; j++) out[n++] = S->o.at.names[j];
        return (long)n;
    }
    const char *f;
    for (size_t i = 0; n < max && (f = ad_function(i, NULL)) != NULL; i++) out[n++] = f;
    for (size_t j = 0; j < S->o.at.n && n < max; j++) out[n++] = S->o.at.names[j];
    /* the session's functions and names, copied out of its text */
    size_t len, pos = 0, used = 0;
    int kept, l = 1, c = 1;
    const char *t = ad_session_text(S->sess, &len, &kept);
    free(S->names);
    S->names = malloc(len + 1);
    ad_stmt st;
    while (S->names && n < max && ad_next_stmt(t, len, &pos, &l, &c, &st))
        if (st.kind == AD_STMT_DEF || st.kind == AD_STMT_ASSIGN) {
            memcpy(S->names + used, t + st.name_off, st.name_len);
            S->names[used + st.name_len] = 0;
            out[n++] = S->names + used;
            used += st.name_len + 1;
        }
    return (long)n;
}

/* the session's own state: a copy of the point (which :at changes), the
 * tapes and workspaces; 0, or -1 when out of memory (nothing to free) */
/* a copy of from's names and values into to (which :at, :seed change);
 * 0, or -1 when out of memory (what was copied is to's to free) */
static int copy_bindings(cli_bindings *to, const cli_bindings *from)
{
    size_t n = from->n;
    memset(to, 0, sizeof *to);
    to->names = calloc(n ? n : 1, sizeof *to->names);
    to->values = malloc((n ? n : 1) * sizeof *to->values);
    int ok = to->names && to->values;
    for (size_t i = 0; ok && i < n; i++, to->n++) {
        to->values[i] = from->values[i];
        ok = (to->names[i] = strdup(from->names[i])) != NULL;
    }
    to->cap = to->n;
    return ok ? 0 : -1;
}

static void free_wrt(cli_options *o)
{
    for (size_t i = 0; i < o->nwrt; i++) free(o->wrt[i]);
    free(o->wrt);
    o->wrt = NULL;
    o->nwrt = o->wrtcap = 0;
}

static int session_open(session *S, const cli_options *opts)
{
    memset(S, 0, sizeof *S);
    S->o = *opts;
    S->o.session = 1;   /* hints name the session's commands (:at) */
    /* the settings the session changes are its own: the point, :seed, :wrt */
    int ok = copy_bindings(&S->o.at, &opts->at) == 0;
    ok = copy_bindings(&S->o.seed, &opts->seed) == 0 && ok;
    S->o.nwrt = S->o.wrtcap = 0;
    S->o.wrt = calloc(opts->nwrt ? opts->nwrt : 1, sizeof *S->o.wrt);
    ok = ok && S->o.wrt;
    for (size_t i = 0; ok && i < opts->nwrt; i++, S->o.nwrt++) ok = (S->o.wrt[i] = strdup(opts->wrt[i])) != NULL;
    S->o.wrtcap = S->o.nwrt;
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
    S->srcname = "<stdin>";
    S->o.adjoint = NULL;
    return ok && S->t && S->last && S->w && S->lastw ? 0 : -1;
}

static void session_close(session *S)
{
    ad_session_free(S->sess);
    free(S->lastsrc);
    cli_bindings_free(&S->o.at);
    cli_bindings_free(&S->o.seed);
    free_wrt(&S->o);
    ad_tape_free(S->t);
    ad_tape_free(S->last);
    ad_work_free(S->w);
    ad_work_free(S->lastw);
    for (size_t j = 0; j < S->nwarned; j++) free(S->warned[j]);
    free(S->warned);
    free(S->header);
    free(S->names);
}

/* reads lines into chunks of whole statements and runs them, and the
 * commands, until the end of the input, :quit or a fatal error */
static void read_statements(session *S, cli_lines *L)
{
    int interactive = L->interactive;
    char *chunk = NULL;
    size_t clen = 0, ccap = 0;
    int lineno = 0, start = 1;
    for (;;) {
        size_t llen = 0;
        int err, cancelled;
        char *l = cli_lines_read(L, clen ? "...> " : "adcalc> ", &llen, &err, &cancelled);
        if (cancelled) {
            /* Control-C: the statement being typed is dropped too */
            clen = 0;
            if (!l) continue;
        }
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
            /* blanks after a command are not part of its value (Tab leaves one) */
            while (llen > 0 && isspace((unsigned char)l[llen - 1])) l[--llen] = 0;
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

/* the start-up file of a session on a terminal: $XDG_CONFIG_HOME/adcalc/
 * init.ad (~/.config/adcalc/init.ad when that is unset), when it exists */
static void run_init(session *S)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char path[4096];
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(path, sizeof path, "%s/adcalc/init.ad", xdg);
    else if (home && *home) n = snprintf(path, sizeof path, "%s/.config/adcalc/init.ad", home);
    else return;
    if (n < 0 || (size_t)n >= sizeof path || (access(path, F_OK) != 0 && errno == ENOENT)) return;
    load(S, path);
}

int cli_repl(const cli_options *opts, int interactive)
{
    session S;
    if (session_open(&S, opts) < 0) {
        cli_error(opts, NULL, AD_E_IO, "out of memory");
        session_close(&S);
        return cli_exit_code(AD_E_IO);
    }
    cli_lines L;
    cli_lines_open(&L, interactive, &(cli_completion){file_word, candidates, &S});
    if (interactive && !opts->no_init) run_init(&S);
    for (size_t k = 0; k < opts->pre.nlib && !S.fatal; k++)
        run_library(&S, opts->pre.lib[k].name, opts->pre.lib[k].src, opts->pre.lib[k].len);
    S.interactive = interactive;
    if (!S.fatal) read_statements(&S, &L);
    cli_lines_close(&L);
    int status = S.fatal ? cli_exit_code(AD_E_IO) : interactive ? 0 : S.status;
    session_close(&S);
    return status;
}
