/* options.c - parsing and checking the command line: -e/-f sources, the
 * point (-at), the derivative requests (--grad, --wrt, --seed) and the
 * output choices.  Every mistake is a usage error naming its culprit. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "ops.h"
#include "alloc.h"

static ad_errclass usage(ad_diag *d, const char *fmt, const char *a, const char *b)
{
    char q1[80], q2[80];
    snprintf(q1, sizeof q1, "%s", a ? a : "");
    snprintf(q2, sizeof q2, "%s", b ? b : "");
    if (strlen(a ? a : "") >= sizeof q1) strcpy(q1 + sizeof q1 - 4, "...");
    if (strlen(b ? b : "") >= sizeof q2) strcpy(q2 + sizeof q2 - 4, "...");
    char m[300];
    snprintf(m, sizeof m, fmt, q1, q2);
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s", m);
}

int cli_parse_number(const char *s, size_t len, double *out, const char **why)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    }
    if (digits == 0) { *why = "is not a number"; return -1; }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        size_t ed = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') { i++; ed++; }
        if (ed == 0) { *why = "is not a number"; return -1; }
    }
    if (i != len) { *why = "is not a number"; return -1; }
    char buf[64], *copy = buf;
    if (len >= sizeof buf) {
        copy = adi_malloc(len + 1);
        if (!copy) { *why = "could not be read (out of memory)"; return -1; }
    }
    memcpy(copy, s, len);
    copy[len] = 0;
    errno = 0;
    double x = strtod(copy, NULL);
    if (copy != buf) free(copy);
    if (errno == ERANGE && isinf(x)) { *why = "is too large for a double"; return -1; }
    *out = x;
    return 0;
}

static int is_ident(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static char *dupn(const char *s, size_t n)
{
    char *p = adi_malloc(n + 1);
    if (p) { memcpy(p, s, n); p[n] = 0; }
    return p;
}

/* checks one variable name given on the command line */
static ad_errclass check_name(const char *opt, const char *s, size_t n, ad_diag *d)
{
    char q[80];
    snprintf(q, sizeof q, "%.*s", (int)(n > 60 ? 60 : n), s);
    if (n > 60) strcat(q, "...");
    if (!is_ident(s, n))
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%s' is not a variable name", opt, q);
    if ((n == 2 && !memcmp(s, "pi", 2)) || (n == 1 && s[0] == 'e'))
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%s' is a constant, not a variable", opt, q);
    if (adi_fn_lookup(s, n))
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%s' is a function, not a variable", opt, q);
    return AD_E_NONE;
}

/* "x=2,y=3" appended to *list; names must be new */
static ad_errclass parse_bindings(const char *opt, const char *arg, cli_binding **list, size_t *n,
                                  ad_diag *d)
{
    if (*arg == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: empty list (expected NAME=VALUE[,NAME=VALUE...])", opt);
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq) {
            char q[80];
            snprintf(q, sizeof q, "%.*s", (int)(len > 60 ? 60 : len), p);
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: expected NAME=VALUE, got '%s'", opt, q);
        }
        size_t nl = (size_t)(eq - p);
        ad_errclass e = check_name(opt, p, nl, d);
        if (e) return e;
        for (size_t i = 0; i < *n; i++)
            if (strlen((*list)[i].name) == nl && !memcmp((*list)[i].name, p, nl))
                return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: variable '%.*s' given twice", opt,
                                   (int)(nl > 60 ? 60 : nl), p);
        double v;
        const char *why;
        size_t vl = len - nl - 1;
        if (cli_parse_number(eq + 1, vl, &v, &why) < 0) {
            char q[80];
            snprintf(q, sizeof q, "%.*s", (int)(vl > 60 ? 60 : vl), eq + 1);
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: value of '%.*s' %s: '%s'", opt,
                               (int)(nl > 60 ? 60 : nl), p, why, q);
        }
        cli_binding *nb = adi_realloc(*list, (*n + 1) * sizeof **list);
        if (!nb) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        *list = nb;
        nb[*n].name = dupn(p, nl);
        if (!nb[*n].name) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        nb[*n].value = v;
        (*n)++;
        if (!end) break;
        p = end + 1;
    }
    return AD_E_NONE;
}

static ad_errclass add_source(cli_options *o, const char *name, char *text, size_t len, ad_diag *d)
{
    cli_source *ns = adi_realloc(o->src, (o->nsrc + 1) * sizeof *o->src);
    if (!ns) { free(text); return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); }
    o->src = ns;
    ns[o->nsrc++] = (cli_source){.name = name, .src = text, .len = len};
    return AD_E_NONE;
}

static ad_errclass read_file(cli_options *o, const char *path, ad_diag *d)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return ad_diag_set(d, AD_E_IO, 0, 0, "cannot read '%s': %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = adi_malloc(cap);
    if (!buf) { if (f != stdin) fclose(f); return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); }
    errno = 0;
    for (;;) {
        if (len == cap) {
            char *nb = cap < ((size_t)1 << 31) ? adi_realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                if (f != stdin) fclose(f);
                return ad_diag_set(d, AD_E_IO, 0, 0, "cannot read '%s': %s", path,
                                   cap < ((size_t)1 << 31) ? "out of memory" : "file larger than 2 GiB");
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    if (f != stdin) fclose(f);
    if (err) { free(buf); return ad_diag_set(d, AD_E_IO, 0, 0, "cannot read '%s': %s", path, strerror(err)); }
    return add_source(o, strcmp(path, "-") == 0 ? "<stdin>" : path, buf, len, d);
}

/* the value of an option: "--opt=value", "--opt value", "-ovalue", "-o value" */
static const char *take(int argc, char **argv, int *i, const char *inline_val, const char *opt,
                        ad_diag *d, ad_errclass *e)
{
    if (inline_val) return inline_val;
    if (*i + 1 >= argc) {
        *e = ad_diag_set(d, AD_E_USAGE, 0, 0, "option '%s' needs a value", opt);
        return NULL;
    }
    return argv[++*i];
}

/* single-valued options may be repeated only with the same value */
static ad_errclass set_once(int *field, int *seen, int value, const char *opt, ad_diag *d)
{
    if (*seen && *field != value)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "option '%s' given twice with different values", opt);
    *field = value;
    *seen = 1;
    return AD_E_NONE;
}

static ad_errclass names_list(const char *opt, const char *arg, char ***list, size_t *n, ad_diag *d)
{
    if (*arg == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: empty list (expected NAME[,NAME...])", opt);
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        ad_errclass e = check_name(opt, p, len, d);
        if (e) return e;
        for (size_t i = 0; i < *n; i++)
            if (strlen((*list)[i]) == len && !memcmp((*list)[i], p, len))
                return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: variable '%.*s' given twice", opt,
                                   (int)(len > 60 ? 60 : len), p);
        char **nl = adi_realloc(*list, (*n + 1) * sizeof **list);
        if (!nl) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        *list = nl;
        if (!(nl[*n] = dupn(p, len))) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        (*n)++;
        if (!end) break;
        p = end + 1;
    }
    return AD_E_NONE;
}

static int is_opt(const char *opt, const char *a, const char *b)
{
    return strcmp(opt, a) == 0 || (b && strcmp(opt, b) == 0);
}

/* "12": digits only, within [lo, hi]; 0 or -1 */
static int whole_number(const char *v, long lo, long hi, long *out)
{
    if (*v < '0' || *v > '9') return -1;
    char *end;
    errno = 0;
    long p = strtol(v, &end, 10);
    if (*end || errno || p < lo || p > hi) return -1;
    *out = p;
    return 0;
}

/* "0.5,1,-2" */
static ad_errclass numbers_list(const char *opt, const char *arg, double **list, size_t *n, ad_diag *d)
{
    if (*arg == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: empty list (expected NUMBER[,NUMBER...])", opt);
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        double v;
        const char *why;
        if (cli_parse_number(p, len, &v, &why) < 0)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.*s' %s", opt, (int)(len > 60 ? 60 : len), p, why);
        double *nl = adi_realloc(*list, (*n + 1) * sizeof **list);
        if (!nl) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        *list = nl;
        nl[(*n)++] = v;
        if (!end) break;
        p = end + 1;
    }
    return AD_E_NONE;
}

static int lookup_word(const char *v, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, words[i]) == 0) return i;
    return -1;
}

ad_errclass cli_options_parse(cli_options *o, int argc, char **argv, ad_diag *d)
{
    memset(o, 0, sizeof *o);
    /* errors found while reading the options are printed in the format asked
     * for, wherever --format appears */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--format=json") == 0 ||
            (strcmp(argv[i], "--format") == 0 && i + 1 < argc && strcmp(argv[i + 1], "json") == 0))
            o->format = CLI_FMT_JSON;
        if (strcmp(argv[i], "-e") == 0 || strcmp(argv[i], "--expr") == 0 || strcmp(argv[i], "-f") == 0 ||
            strcmp(argv[i], "-at") == 0 || strcmp(argv[i], "--at") == 0)
            i++;   /* skip their values: an expression may read "--format" */
    }
    int seen_mode = 0, seen_pol = 0, seen_dump = 0, seen_fmt = 0, seen_prec = 0;
    int mode = 0, pol = 0, dump = 0, fmt = 0, prec = 0;
    int seen_order = 0, order = 0, seen_step = 0, seen_rtol = 0, seen_atol = 0;
    int seen_onerr = 0, onerr = 0, seen_jobs = 0, jobs = 1;
    o->step_scale = 1;
    o->rtol = 1e-5;
    o->atol = 1e-7;
    ad_errclass e = AD_E_NONE;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        char opt[64];
        if (arg[0] != '-' || arg[1] == 0) {
            if (i > 1 && strcmp(argv[i - 1], "--dump-tape") == 0 &&
                (!strcmp(arg, "text") || !strcmp(arg, "tsv") || !strcmp(arg, "json") || !strcmp(arg, "dot")))
                return usage(d, "--dump-tape takes its format after '=': --dump-tape=%s", arg, NULL);
            return usage(d, "unexpected argument '%s' (expressions go after -e)", arg, NULL);
        }
        if (strcmp(arg, "--") == 0) {
            if (i + 1 < argc)
                return usage(d, "unexpected argument '%s' (expressions go after -e)", argv[i + 1], NULL);
            break;
        }
        /* split "--name=value"; "-at" is a long option with one dash */
        if (arg[1] == '-' || strncmp(arg, "-at", 3) == 0) {
            const char *eq = strchr(arg, '=');
            size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
            if (n >= sizeof opt) n = sizeof opt - 1;
            memcpy(opt, arg, n);
            opt[n] = 0;
            if (eq) val = eq + 1;
            if (strcmp(opt, "-at") != 0 && arg[1] != '-') {
                /* "-atx=2" is not an option */
                return usage(d, "unknown option '%s'", arg, NULL);
            }
        } else {
            opt[0] = '-';
            opt[1] = arg[1];
            opt[2] = 0;
            if (arg[2]) val = arg + 2;
        }
#define IS(a, b) is_opt(opt, a, b)
        if (IS("-h", "--help")) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->help = 1;
        } else if (IS("-V", "--version")) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->version = 1;
        } else if (IS("-e", "--expr")) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            char *copy = dupn(v, strlen(v));
            if (!copy) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
            if ((e = add_source(o, NULL, copy, strlen(v), d))) return e;
        } else if (IS("-f", "--file")) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if ((e = read_file(o, v, d))) return e;
        } else if (IS("-at", "--at")) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if ((e = parse_bindings(opt, v, &o->at, &o->nat, d))) return e;
        } else if (IS("--grad", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->grad = 1;
        } else if (IS("--wrt", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if ((e = names_list(opt, v, &o->wrt, &o->nwrt, d))) return e;
            o->grad = 1;
        } else if (IS("--jacobian", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->jacobian = 1;
        } else if (IS("--hessian", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->hessian = 1;
        } else if (IS("--points", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if (o->points && strcmp(o->points, v) != 0)
                return usage(d, "option '%s' given twice with different values", opt, NULL);
            o->points = v;
        } else if (IS("--vars", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if ((e = names_list(opt, v, &o->vars, &o->nvars, d))) return e;
        } else if (IS("--binary", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->binary = 1;
        } else if (IS("--stats", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->stats = 1;
        } else if (IS("--no-optimize", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->no_optimize = 1;
        } else if (IS("--on-error", NULL)) {
            static const char *const w[] = {"stop", "skip", "nan"};
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            int k = lookup_word(v, w, 3);
            if (k < 0) return usage(d, "--on-error: expected stop, skip or nan, got '%s'", v, NULL);
            if ((e = set_once(&onerr, &seen_onerr, k, opt, d))) return e;
        } else if (IS("-j", "--jobs")) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            long k;
            if (whole_number(v, 0, 1024, &k) < 0)
                return usage(d, "-j: expected a number of threads from 0 (all cores) to 1024, got '%s'", v, NULL);
            if ((e = set_once(&jobs, &seen_jobs, (int)k, opt, d))) return e;
        } else if (IS("--check", NULL)) {
            if (val) return usage(d, "option '%s' takes no value", opt, NULL);
            o->check = 1;
        } else if (IS("--adjoint", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if (o->adjoint) return usage(d, "option '%s' given twice", opt, NULL);
            if ((e = numbers_list(opt, v, &o->adjoint, &o->nadjoint, d))) return e;
        } else if (IS("--order", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            long k;
            if (whole_number(v, 1, AD_MAX_ORDER, &k) < 0)
                return usage(d, "--order: expected a whole number from 1 to 100, got '%s'", v, NULL);
            if ((e = set_once(&order, &seen_order, (int)k, opt, d))) return e;
        } else if (IS("--step-scale", NULL) || IS("--rtol", NULL) || IS("--atol", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            double x;
            const char *why;
            int is_step = opt[2] == 's';
            if (cli_parse_number(v, strlen(v), &x, &why) < 0 || x < 0 || (is_step && x == 0))
                return usage(d, is_step ? "%s: expected a positive number, got '%s'"
                                        : "%s: expected a number >= 0, got '%s'", opt, v);
            double *field = is_step ? &o->step_scale : opt[2] == 'r' ? &o->rtol : &o->atol;
            int *seen = is_step ? &seen_step : opt[2] == 'r' ? &seen_rtol : &seen_atol;
            if (*seen && *field != x) return usage(d, "option '%s' given twice with different values", opt, NULL);
            *field = x;
            *seen = 1;
        } else if (IS("--seed", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            if ((e = parse_bindings(opt, v, &o->seed, &o->nseed, d))) return e;
        } else if (IS("--mode", NULL)) {
            static const char *const w[] = {"forward", "reverse", "auto"};
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            int k = lookup_word(v, w, 3);
            if (k < 0) return usage(d, "--mode: expected forward, reverse or auto, got '%s'", v, NULL);
            if ((e = set_once(&mode, &seen_mode, k + 1, opt, d))) return e;
        } else if (IS("--nondiff", NULL)) {
            static const char *const w[] = {"strict", "zero-subgrad"};
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            int k = lookup_word(v, w, 2);
            if (k < 0) return usage(d, "--nondiff: expected strict or zero-subgrad, got '%s'", v, NULL);
            if ((e = set_once(&pol, &seen_pol, k, opt, d))) return e;
        } else if (IS("--format", NULL)) {
            static const char *const w[] = {"text", "json"};
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            int k = lookup_word(v, w, 2);
            if (k < 0) return usage(d, "--format: expected text or json, got '%s'", v, NULL);
            if ((e = set_once(&fmt, &seen_fmt, k, opt, d))) return e;
        } else if (IS("--dump-tape", NULL)) {
            static const char *const w[] = {"text", "tsv", "json", "dot"};
            int k = 0;
            if (val) {
                k = lookup_word(val, w, 4);
                if (k < 0) return usage(d, "--dump-tape: expected text, tsv, json or dot, got '%s'", val, NULL);
            }
            if ((e = set_once(&dump, &seen_dump, k, opt, d))) return e;
        } else if (IS("--precision", NULL)) {
            const char *v = take(argc, argv, &i, val, opt, d, &e);
            if (!v) return e;
            long p;
            if (whole_number(v, 1, 17, &p) < 0)
                return usage(d, "--precision: expected a whole number from 1 to 17, got '%s'", v, NULL);
            if ((e = set_once(&prec, &seen_prec, (int)p, opt, d))) return e;
        } else {
            return usage(d, "unknown option '%s'", arg, NULL);
        }
#undef IS
    }
    /* name the -e sources: "-e", or "-e#1", "-e#2"... when there are several */
    size_t ne = 0;
    for (size_t i = 0; i < o->nsrc; i++) ne += o->src[i].name == NULL;
    for (size_t i = 0, k = 0; i < o->nsrc; i++) {
        if (o->src[i].name) continue;
        k++;
        if (ne == 1) {
            o->src[i].name = "-e";
        } else {
            snprintf(o->src[i].label, sizeof o->src[i].label, "-e#%zu", k);
            o->src[i].name = o->src[i].label;
        }
    }
    o->mode = (ad_mode)mode;
    o->order = order;
    o->on_error = onerr;
    o->no_block = getenv("ADCALC_NO_BLOCK") != NULL;
    o->jobs = jobs;
    o->policy = (ad_policy)pol;
    o->dump = seen_dump;
    o->dumpfmt = (ad_dump_format)dump;
    if (seen_fmt) o->format = (cli_outfmt)fmt;
    o->precision = prec;
    if (o->help || o->version) return AD_E_NONE;

    /* without -e or -f, statements come from stdin (the REPL, repl.c) */
    if (o->nsrc == 0 && (o->jacobian || o->adjoint || o->dump))
        return usage(d, "%s needs expressions given with -e or -f",
                     o->jacobian ? "--jacobian" : o->adjoint ? "--adjoint" : "--dump-tape", NULL);
    if (o->adjoint && o->nadjoint != o->nsrc)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "--adjoint: %zu weight%s for %zu expression%s (one weight per -e)",
                           o->nadjoint, o->nadjoint == 1 ? "" : "s", o->nsrc, o->nsrc == 1 ? "" : "s");
    if ((o->jacobian || o->adjoint) && (o->hessian || o->order || o->check))
        return usage(d, "%s cannot be combined with --hessian, --order or --check", o->jacobian ? "--jacobian" : "--adjoint", NULL);
    if ((o->jacobian || o->adjoint) && o->dump)
        return usage(d, "%s cannot be combined with --dump-tape", o->jacobian ? "--jacobian" : "--adjoint", NULL);
    if (!o->check && (seen_step || seen_rtol || seen_atol))
        return usage(d, "%s only applies with --check", seen_step ? "--step-scale" : seen_rtol ? "--rtol" : "--atol", NULL);
    if (o->order && o->hessian)
        return usage(d, "--order cannot be combined with --hessian", NULL, NULL);
    if (o->order && o->nseed == 0 && (o->nwrt ? o->nwrt : o->nat) != 1)
        return usage(d, "--order needs a function of one variable (one -at variable, or --wrt NAME) or a --seed direction", NULL, NULL);
    /* batch mode: the points name the variables */
    if (!o->points && (o->nvars || o->binary || seen_onerr || seen_jobs))
        return usage(d, "%s only applies with --points",
                     o->nvars ? "--vars" : o->binary ? "--binary" : seen_onerr ? "--on-error" : "-j", NULL);
    if (o->points) {
        if (o->nsrc == 0)
            return usage(d, "--points needs expressions given with -e or -f", NULL, NULL);
        for (size_t i = 0; i < o->nsrc; i++)
            if (strcmp(o->points, "-") == 0 && strcmp(o->src[i].name, "<stdin>") == 0)
                return usage(d, "-f - and --points - cannot both read stdin", NULL, NULL);
        if (o->binary && !o->nvars)
            return usage(d, "--binary needs --vars (the columns of the binary rows)", NULL, NULL);
        if (o->binary && o->format == CLI_FMT_JSON)
            return usage(d, "--binary cannot be combined with --format json", NULL, NULL);
        if (o->order || o->check || o->adjoint || o->dump)
            return usage(d, "--points cannot be combined with %s",
                         o->order ? "--order" : o->check ? "--check" : o->adjoint ? "--adjoint" : "--dump-tape", NULL);
        for (size_t i = 0; i < o->nvars; i++)
            for (size_t j = 0; j < o->nat; j++)
                if (strcmp(o->vars[i], o->at[j].name) == 0)
                    return usage(d, "'%s' is given both by -at and by the points", o->vars[i], NULL);
        /* --seed and --wrt name columns or -at values: checked once the
         * header is read (batch.c) */
        return AD_E_NONE;
    }
    /* --seed and --wrt may only name variables that -at gives */
    for (size_t i = 0; i < o->nseed; i++) {
        size_t j = 0;
        while (j < o->nat && strcmp(o->at[j].name, o->seed[i].name) != 0) j++;
        if (j == o->nat)
            return usage(d, "--seed: '%s' has no value in -at", o->seed[i].name, NULL);
    }
    for (size_t i = 0; i < o->nwrt; i++) {
        size_t j = 0;
        while (j < o->nat && strcmp(o->at[j].name, o->wrt[i]) != 0) j++;
        if (j == o->nat)
            return usage(d, "--wrt: '%s' has no value in -at", o->wrt[i], NULL);
    }
    return AD_E_NONE;
}

void cli_options_free(cli_options *o)
{
    for (size_t i = 0; i < o->nsrc; i++) free(o->src[i].src);
    for (size_t i = 0; i < o->nat; i++) free(o->at[i].name);
    for (size_t i = 0; i < o->nseed; i++) free(o->seed[i].name);
    for (size_t i = 0; i < o->nwrt; i++) free(o->wrt[i]);
    free(o->src);
    free(o->at);
    free(o->seed);
    free(o->wrt);
    free(o->adjoint);
    for (size_t i = 0; i < o->nvars; i++) free(o->vars[i]);
    free(o->vars);
}
