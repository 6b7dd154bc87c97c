/* test_corpus.c - checks the engine (libadcalc.a) against the reference
 * corpus in tests/corpus/ (format and semantics: tests/corpus/README.md).
 *
 * Usage: test_corpus [CORPUS_DIR]
 * Without an argument the corpus is $top_srcdir/tests/corpus (make check
 * exports top_srcdir).
 *
 * For every case, both engines are run on the same tape:
 *   reverse: ad_eval + ad_reverse (gradient), and for jvp.tsv the gradient
 *            dotted with the seed;
 *   forward: one ad_forward sweep of width n with identity seeds (gradient),
 *            or of width 1 with the seed (jvp.tsv).
 * Variables are bound to tape inputs by name (ad_tape_input_name), never by
 * position.  One tape and one workspace are reused for the whole run, so
 * the run also exercises re-recording and workspace reuse.
 *
 * Comparisons:
 *   against the reference (README "Recommended tolerance"):
 *       |got - ref| <= 1e-9 |ref|, or |got| <= 1e-12 where ref is exactly 0.
 *   forward against reverse (the same value or partial derivative from the
 *   two modes):  |f - r| <= 1e-13 * max(|f|, |r|, S)  or  |f - r| <= DBL_MIN.
 *       Why S: the tape of an expression is a tree whose only shared nodes
 *       are the leaves (true of everything the corpus uses; derived
 *       functions like smooth_clamp, which share an argument, are absent),
 *       so df/dv is the SUM over the occurrences of v of one
 *       path product each (the derivative w.r.t. that occurrence).  The two
 *       modes multiply the same local partials (ops.def) but add the
 *       occurrence terms in different orders (forward: in execution order;
 *       reverse: adjoints accumulated backwards), so when the terms cancel
 *       their results legitimately differ by a few ulps of the TERMS, not
 *       of the (smaller) sum.  S = sum over occurrences of |term| is that
 *       scale.  It is measured with the engine itself: the expression is
 *       re-recorded with every occurrence of a variable renamed to its own
 *       fresh input (zq0, zq1, ...), and the reverse gradient of that copy
 *       gives the terms.  For a variable that occurs once, S = |df/dv| and
 *       the test is the plain relative test.  For the value, S = 0.
 *       No absolute slack beyond DBL_MIN (the "1e-300 scale": differences
 *       confined to subnormals), so an exact 0 in one mode against a nonzero
 *       result in the other fails unless the occurrence terms are nonzero
 *       and the residue is within 1e-13 of them; where all terms are 0 both
 *       modes must give exactly 0.  NaN never agrees.
 *       Cases that pass only thanks to S (|f - r| > 1e-13 max(|f|, |r|))
 *       are listed as NOTE lines, so the stricter reading stays visible.
 *   The jvp of reverse mode (gradient . seed, summed in double) is compared
 *   with the reference only, not with forward mode.
 *   The Hessian column of hessian.tsv is not checked: the engine has no
 *   second-order API; its value and gradient are checked like grad.tsv.
 *
 * Output: one line per failed check ("FAIL file id mode what: got .. want
 * ..."), then per file the cases passed/failed, the worst relative error
 * against the reference, the largest |got| where the reference is 0, and the
 * worst forward/reverse disagreement.  Exit status 0 when everything passed,
 * 1 when a check failed, 99 when the corpus cannot be read. */
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adcalc.h"

#define REL_TOL 1e-9
#define ZERO_TOL 1e-12
#define FR_TOL 1e-13
#define MAXVARS 64

typedef struct {
    const char *file;
    long cases, pass, fail, checks;
    double worst_rel;     /* max |got - ref| / |ref| over ref != 0 */
    char worst_rel_at[96];
    double worst_zero;    /* max |got| over ref == 0 */
    char worst_zero_at[96];
    double worst_fr;      /* max |f - r| / max(|f|, |r|, S) */
    long notes;           /* forward/reverse pairs that needed S */
    long fr_checks;       /* forward/reverse comparisons made */
    long zero_refs;       /* reference numbers that are exactly 0 */
    char worst_fr_at[96];
} fstats;

static ad_tape *tape;
static ad_work *work;
static int case_failed;   /* a check of the current case failed */
static long total_fail;

static void fail_line(const fstats *s, const char *id, const char *mode, const char *what,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void fail_line(const fstats *s, const char *id, const char *mode, const char *what,
                      const char *fmt, ...)
{
    va_list ap;
    printf("FAIL %s %s %s %s: ", s->file, id, mode, what);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    case_failed = 1;
}

/* the variables of one case bound to the tape inputs */
typedef struct {
    int n;                  /* variables */
    char *names[MAXVARS];
    double x[MAXVARS];      /* values, at order */
    size_t ni;
    long in_of[MAXVARS];    /* at index -> tape input */
    double inputs[MAXVARS]; /* tape order */
    unsigned char diff[MAXVARS];
} binding;

/* ---- comparisons ---- */

static void check_ref(fstats *s, const char *id, const char *mode, const char *what,
                      double got, double ref)
{
    s->checks++;
    int ok;
    if (ref == 0) {
        double a = fabs(got);
        s->zero_refs++;
        ok = a <= ZERO_TOL;   /* false for NaN */
        if (!(a <= s->worst_zero)) {
            s->worst_zero = a;
            snprintf(s->worst_zero_at, sizeof s->worst_zero_at, "%s %s %s", id, mode, what);
        }
        if (!ok)
            fail_line(s, id, mode, what, "got %.17g want 0 (|got| > %g)", got, ZERO_TOL);
        return;
    }
    double rel = fabs(got - ref) / fabs(ref);
    ok = fabs(got - ref) <= REL_TOL * fabs(ref);
    if (!(rel <= s->worst_rel)) {
        s->worst_rel = rel;
        snprintf(s->worst_rel_at, sizeof s->worst_rel_at, "%s %s %s", id, mode, what);
    }
    if (!ok) fail_line(s, id, mode, what, "got %.17g want %.17g (rel err %.3g)", got, ref, rel);
}

/* S is the sum of the |occurrence terms| (0 when unknown; see the top) */
static void check_fr(fstats *s, const char *id, const char *what, double f, double r, double S)
{
    s->checks++;
    s->fr_checks++;
    double diff = fabs(f - r), m = fmax(fabs(f), fabs(r)), scale = fmax(m, S);
    int ok = diff <= FR_TOL * scale || diff <= DBL_MIN;
    double rel = diff == 0 ? 0 : diff / scale;
    if (!(rel <= s->worst_fr)) {
        s->worst_fr = rel;
        snprintf(s->worst_fr_at, sizeof s->worst_fr_at, "%s %s", id, what);
    }
    if (!ok) {
        fail_line(s, id, "fwd-vs-rev", what,
                  "forward %.17g reverse %.17g (diff %.3g > %g * max(|f|, |r|, S = %.3g))", f, r,
                  diff, FR_TOL, S);
    } else if (diff > DBL_MIN && diff > FR_TOL * m) {
        s->notes++;
        printf("NOTE %s %s fwd-vs-rev %s: forward %.17g reverse %.17g differ by %.3g relative to "
               "the result, %.3g relative to the sum of |occurrence terms| S = %.17g\n",
               s->file, id, what, f, r, diff / m, diff / S, S);
    }
}

/* ---- the scale S: the expression with every variable occurrence renamed ---- */

static ad_tape *split_tape;

/* copies expr to out with each variable occurrence renamed zq<k>; occ[k] is
 * the at index of occurrence k.  Numbers are skipped as the lexer reads
 * them (2E-2 has no variable E); a name followed by '(' is a function, pi
 * and e are constants.  Returns the number of occurrences, or -1. */
static int split_occurrences(const char *expr, char *const *names, int n, char *out, size_t cap,
                             int *occ, int maxocc)
{
    size_t o = 0;
    int k = 0;
    const char *p = expr;
#define PUT(c) do { if (o + 1 >= cap) return -1; out[o++] = (c); } while (0)
    while (*p) {
        char c = *p;
        if ((c >= '0' && c <= '9') || c == '.') {
            while ((*p >= '0' && *p <= '9') || *p == '.') PUT(*p++);
            if ((*p == 'e' || *p == 'E') &&
                ((p[1] >= '0' && p[1] <= '9') ||
                 ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
                PUT(*p++);
                if (*p == '+' || *p == '-') PUT(*p++);
                while (*p >= '0' && *p <= '9') PUT(*p++);
            }
        } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
            const char *b = p;
            while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_' ||
                   (*p >= '0' && *p <= '9'))
                p++;
            size_t len = (size_t)(p - b);
            const char *q = p;
            while (*q == ' ') q++;
            int j = -1;
            if (*q != '(')
                for (j = 0; j < n; j++)
                    if (strlen(names[j]) == len && memcmp(names[j], b, len) == 0) break;
            if (j >= 0 && j < n) {
                if (k >= maxocc) return -1;
                char nm[32];
                int l = snprintf(nm, sizeof nm, "zq%d", k);
                for (int i = 0; i < l; i++) PUT(nm[i]);
                occ[k++] = j;
            } else {
                for (const char *t = b; t < p; t++) PUT(*t);
            }
        } else {
            PUT(*p++);
        }
    }
#undef PUT
    out[o] = 0;
    return k;
}

/* S[j] for every at variable j; all 0 when it cannot be measured */
static void occurrence_scale(const char *expr, const binding *b, ad_policy pol, double *S)
{
    enum { MAXOCC = 4096 };
    static int occ[MAXOCC];
    static double x[MAXOCC], g[MAXOCC];
    static unsigned char diff[MAXOCC];
    size_t cap = strlen(expr) * 4 + 64;
    char *buf = malloc(cap);
    for (int j = 0; j < b->n; j++) S[j] = 0;
    if (!buf) return;
    int k = split_occurrences(expr, b->names, b->n, buf, cap, occ, MAXOCC);
    ad_diag d;
    if (k < 0 || ad_parse(split_tape, buf, strlen(buf), &d) != AD_E_NONE ||
        ad_tape_ninputs(split_tape) != (size_t)k) {
        free(buf);
        return;
    }
    free(buf);
    long tape_of[MAXOCC];   /* occurrence -> input of split_tape */
    for (size_t i = 0; i < (size_t)k; i++) {
        size_t len;
        const char *nm = ad_tape_input_name(split_tape, i, &len);
        char tmp[32];
        if (len < 3 || len >= sizeof tmp || memcmp(nm, "zq", 2) != 0) return;
        memcpy(tmp, nm + 2, len - 2);
        tmp[len - 2] = 0;
        long o = strtol(tmp, NULL, 10);
        if (o < 0 || o >= k) return;
        tape_of[o] = (long)i;
        x[i] = b->x[occ[o]];
        diff[i] = 1;
    }
    if (ad_eval(split_tape, work, x, &d) != AD_E_NONE ||
        ad_reverse(split_tape, work, diff, pol, g, &d) != AD_E_NONE)
        return;
    for (int o = 0; o < k; o++) S[occ[o]] += fabs(g[tape_of[o]]);
}

/* ---- parsing the TSV fields ---- */

/* strtod of the whole of s; 0 on success */
static int num(const char *s, double *v)
{
    char *end;
    if (!*s) return -1;
    errno = 0;
    *v = strtod(s, &end);
    return *end ? -1 : 0;
}

/* "x=1.5,y=-2" into names/values; returns the count or -1 */
static int parse_at(char *s, char **names, double *vals)
{
    int n = 0;
    if (!*s) return 0;
    for (char *item = s; item;) {
        char *next = strchr(item, ',');
        if (next) *next++ = 0;
        char *eq = strchr(item, '=');
        if (!eq || eq == item || n >= MAXVARS) return -1;
        *eq = 0;
        names[n] = item;
        if (num(eq + 1, &vals[n]) < 0) return -1;
        n++;
        item = next;
    }
    return n;
}

/* space-separated numbers; returns the count or -1 */
static int parse_list(char *s, double *vals, int max)
{
    int n = 0;
    if (!*s) return 0;
    for (char *item = s; item;) {
        char *next = strchr(item, ' ');
        if (next) *next++ = 0;
        if (n >= max || num(item, &vals[n]) < 0) return -1;
        n++;
        item = next;
    }
    return n;
}

/* ---- one case ---- */


/* parses expr and binds the at variables to the tape's inputs by name */
static int bind(fstats *s, const char *id, const char *expr, binding *b)
{
    ad_diag d;
    memset(&d, 0, sizeof d);
    ad_errclass e = ad_parse(tape, expr, strlen(expr), &d);
    if (e) {
        fail_line(s, id, "parse", "status", "got %s at %d:%d: %s, want a tape", ad_err_tag(e),
                  d.line, d.col, d.msg);
        return -1;
    }
    b->ni = ad_tape_ninputs(tape);
    if (b->ni != (size_t)b->n) {
        fail_line(s, id, "parse", "inputs", "tape has %zu inputs, the point has %d variables",
                  b->ni, b->n);
        return -1;
    }
    for (int j = 0; j < b->n; j++) b->in_of[j] = -1;
    for (size_t i = 0; i < b->ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(tape, i, &len);
        int j;
        for (j = 0; j < b->n; j++)
            if (strlen(b->names[j]) == len && memcmp(b->names[j], name, len) == 0) break;
        if (j == b->n || b->in_of[j] >= 0) {
            fail_line(s, id, "parse", "inputs", "tape input %zu '%.*s' is not (once) in at", i,
                      (int)len, name);
            return -1;
        }
        b->in_of[j] = (long)i;
        b->inputs[i] = b->x[j];
        b->diff[i] = 1;
    }
    return 0;
}

static const char *outcome(ad_errclass e)
{
    switch (e) {
    case AD_E_NONE: return "ok";
    case AD_E_DOMAIN: return "domain";
    case AD_E_NONDIFF: return "nondiff";
    default: return ad_err_tag(e);
    }
}

/* reverse mode: value and gradient in at order */
static ad_errclass run_reverse(const binding *b, ad_policy pol, double *val, double *grad,
                               ad_diag *d)
{
    double g[MAXVARS];
    ad_errclass e = ad_eval(tape, work, b->inputs, d);
    if (!e) e = ad_reverse(tape, work, b->diff, pol, g, d);
    if (e) return e;
    *val = ad_value(tape, work);
    for (int j = 0; j < b->n; j++) grad[j] = g[b->in_of[j]];
    return AD_E_NONE;
}

/* forward mode, one sweep of width n with identity seeds: value and
 * gradient in at order (direction j is at variable j) */
static ad_errclass run_forward(const binding *b, ad_policy pol, double *val, double *grad,
                               ad_diag *d)
{
    static double seeds[MAXVARS * MAXVARS];
    double out[MAXVARS];
    size_t k = (size_t)b->n;
    memset(seeds, 0, sizeof seeds);
    for (int j = 0; j < b->n; j++) seeds[(size_t)b->in_of[j] * k + (size_t)j] = 1;
    ad_errclass e = ad_forward(tape, work, b->inputs, b->diff, seeds, k, pol, out, d);
    if (e) return e;
    *val = ad_value(tape, work);
    for (int j = 0; j < b->n; j++) grad[j] = out[j];
    return AD_E_NONE;
}

static void report_status(fstats *s, const char *id, const char *mode, ad_errclass e,
                          const ad_diag *d, const char *want)
{
    fail_line(s, id, mode, "status", "got %s (%s at %d:%d: %s) want %s", outcome(e),
              ad_err_tag(e), d->line, d->col, d->msg, want);
}

/* value and gradient in both modes against the reference, and against
 * each other; ref_grad has b->n entries */
static void check_value_grad(fstats *s, const char *id, const char *expr, const binding *b,
                             ad_policy pol, double ref_val, const double *ref_grad)
{
    double rv = 0, fv = 0, rg[MAXVARS], fg[MAXVARS];
    ad_diag d;
    char what[32];
    memset(&d, 0, sizeof d);
    ad_errclass er = run_reverse(b, pol, &rv, rg, &d);
    if (er) report_status(s, id, "reverse", er, &d, "ok");
    ad_errclass ef = run_forward(b, pol, &fv, fg, &d);
    if (ef) report_status(s, id, "forward", ef, &d, "ok");
    if (!er) {
        check_ref(s, id, "reverse", "value", rv, ref_val);
        for (int j = 0; j < b->n; j++) {
            snprintf(what, sizeof what, "d/d%s", b->names[j]);
            check_ref(s, id, "reverse", what, rg[j], ref_grad[j]);
        }
    }
    if (!ef) {
        check_ref(s, id, "forward", "value", fv, ref_val);
        for (int j = 0; j < b->n; j++) {
            snprintf(what, sizeof what, "d/d%s", b->names[j]);
            check_ref(s, id, "forward", what, fg[j], ref_grad[j]);
        }
    }
    if (!er && !ef) {
        double S[MAXVARS];
        check_fr(s, id, "value", fv, rv, 0);
        occurrence_scale(expr, b, pol, S);
        for (int j = 0; j < b->n; j++) {
            snprintf(what, sizeof what, "d/d%s", b->names[j]);
            check_fr(s, id, what, fg[j], rg[j], S[j]);
        }
    }
}

/* ---- the files ---- */

enum { K_GRAD, K_HESS, K_JVP, K_EDGE };

static int col_of(char **hdr, int nh, const char *name)
{
    for (int i = 0; i < nh; i++)
        if (strcmp(hdr[i], name) == 0) return i;
    return -1;
}

static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line; p;) {
        char *t = strchr(p, '\t');
        if (t) *t++ = 0;
        if (n < max) f[n] = p;
        n++;
        p = t;
    }
    return n;
}

static void print_stats(const fstats *s)
{
    printf("%-12s %5ld cases: %5ld passed, %ld failed (%ld checks)\n", s->file, s->cases, s->pass,
           s->fail, s->checks);
    printf("%-12s worst relative error vs reference: %.3g (%s)\n", "", s->worst_rel,
           s->worst_rel_at[0] ? s->worst_rel_at : "-");
    printf("%-12s largest |got| over the %ld reference numbers that are 0: %.3g%s%s%s\n", "",
           s->zero_refs, s->worst_zero, s->worst_zero_at[0] ? " (" : "", s->worst_zero_at,
           s->worst_zero_at[0] ? ")" : "");
    if (s->fr_checks)
        printf("%-12s worst forward/reverse difference, relative to max(|f|, |r|, S): %.3g%s%s%s; "
               "%ld NOTE(s)\n", "", s->worst_fr, s->worst_fr_at[0] ? " (" : "", s->worst_fr_at,
               s->worst_fr_at[0] ? ")" : "", s->notes);
    else
        printf("%-12s forward and reverse compared with the reference only (jvp)\n", "");
}

/* returns -1 when the file cannot be read or is malformed */
static int run_file(const char *dir, const char *name, int kind, long expect_cases)
{
    fstats s;
    memset(&s, 0, sizeof s);
    s.file = name;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("ERROR cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    static const char *const cols[][7] = {
        [K_GRAD] = {"id", "expr", "at", "value", "grad", NULL},
        [K_HESS] = {"id", "expr", "at", "value", "grad", "hessian", NULL},
        [K_JVP] = {"id", "expr", "at", "seed", "value", "jvp", NULL},
        [K_EDGE] = {"id", "expr", "at", "policy", "expect", "value", "grad"},
    };
    int ci[7] = {0};
    int ncols = 0;
    while (ncols < 7 && cols[kind][ncols]) ncols++;

    char *line = NULL, *hdrline = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int have_header = 0, bad = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n') line[--len] = 0;
        if (!have_header) {
            if (line[0] == '#') continue;
            hdrline = strdup(line);
            char *hdr[16];
            int nh = split_tabs(hdrline, hdr, 16);
            if (nh > 16) nh = 16;
            for (int c = 0; c < ncols; c++) {
                ci[c] = col_of(hdr, nh, cols[kind][c]);
                if (ci[c] < 0) {
                    printf("ERROR %s: no column '%s' in the header\n", name, cols[kind][c]);
                    bad = 1;
                }
            }
            if (bad) break;
            have_header = 1;
            continue;
        }
        if (len == 0) continue;
        char *fld[16];
        int nf = split_tabs(line, fld, 16);
        if (nf > 16) nf = 16;
        char *F[7] = {NULL};
        for (int c = 0; c < ncols; c++) F[c] = ci[c] < nf ? fld[ci[c]] : NULL;
        int missing = 0;
        for (int c = 0; c < ncols; c++) missing |= F[c] == NULL;
        const char *id = F[0] ? F[0] : "?";
        s.cases++;
        case_failed = 0;
        binding b;
        memset(&b, 0, sizeof b);
        if (missing || (b.n = parse_at(F[2], b.names, b.x)) < 0) {
            fail_line(&s, id, "corpus", "row", "line %ld: malformed row", lineno);
            goto next;
        }
        if (kind == K_GRAD || kind == K_HESS) {
            double rv, rg[MAXVARS];
            if (num(F[3], &rv) < 0 || parse_list(F[4], rg, MAXVARS) != b.n) {
                fail_line(&s, id, "corpus", "row", "line %ld: bad value/grad", lineno);
                goto next;
            }
            if (bind(&s, id, F[1], &b) < 0) goto next;
            check_value_grad(&s, id, F[1], &b, AD_STRICT, rv, rg);
        } else if (kind == K_JVP) {
            char *snames[MAXVARS];
            double sv[MAXVARS], rv, rj;
            int ns = parse_at(F[3], snames, sv);
            if (ns != b.n || num(F[4], &rv) < 0 || num(F[5], &rj) < 0) {
                fail_line(&s, id, "corpus", "row", "line %ld: bad seed/value/jvp", lineno);
                goto next;
            }
            if (bind(&s, id, F[1], &b) < 0) goto next;
            /* the seed, in tape input order, matched by name */
            double seed[MAXVARS];
            for (size_t i = 0; i < b.ni; i++) seed[i] = 0;
            int seed_ok = 1;
            for (int m = 0; m < ns; m++) {
                int j;
                for (j = 0; j < b.n; j++)
                    if (strcmp(snames[m], b.names[j]) == 0) break;
                if (j == b.n) seed_ok = 0;
                else seed[b.in_of[j]] = sv[m];
            }
            if (!seed_ok) {
                fail_line(&s, id, "corpus", "row", "line %ld: seed names differ from at", lineno);
                goto next;
            }
            ad_diag d;
            memset(&d, 0, sizeof d);
            /* forward: width 1 */
            double fj = 0;
            ad_errclass e = ad_forward(tape, work, b.inputs, b.diff, seed, 1, AD_STRICT, &fj, &d);
            if (e) {
                report_status(&s, id, "forward", e, &d, "ok");
            } else {
                check_ref(&s, id, "forward", "value", ad_value(tape, work), rv);
                check_ref(&s, id, "forward", "jvp", fj, rj);
            }
            /* reverse: gradient . seed */
            double g[MAXVARS];
            e = ad_eval(tape, work, b.inputs, &d);
            if (!e) e = ad_reverse(tape, work, b.diff, AD_STRICT, g, &d);
            if (e) {
                report_status(&s, id, "reverse", e, &d, "ok");
            } else {
                double sum = 0;
                for (size_t i = 0; i < b.ni; i++) sum += g[i] * seed[i];
                check_ref(&s, id, "reverse", "value", ad_value(tape, work), rv);
                check_ref(&s, id, "reverse", "jvp", sum, rj);
            }
        } else { /* K_EDGE */
            ad_policy pol;
            if (strcmp(F[3], "strict") == 0) pol = AD_STRICT;
            else if (strcmp(F[3], "zero-subgrad") == 0) pol = AD_ZERO_SUBGRAD;
            else {
                fail_line(&s, id, "corpus", "row", "line %ld: unknown policy '%s'", lineno, F[3]);
                goto next;
            }
            const char *want = F[4];
            if (strcmp(want, "ok") && strcmp(want, "domain") && strcmp(want, "nondiff")) {
                fail_line(&s, id, "corpus", "row", "line %ld: unknown expect '%s'", lineno, want);
                goto next;
            }
            double rv = 0, rg[MAXVARS];
            if (strcmp(want, "ok") == 0 &&
                (num(F[5], &rv) < 0 || parse_list(F[6], rg, MAXVARS) != b.n)) {
                fail_line(&s, id, "corpus", "row", "line %ld: bad value/grad", lineno);
                goto next;
            }
            if (bind(&s, id, F[1], &b) < 0) goto next;
            double v1 = 0, v2 = 0, g1[MAXVARS], g2[MAXVARS];
            ad_diag d1, d2;
            memset(&d1, 0, sizeof d1);
            memset(&d2, 0, sizeof d2);
            ad_errclass er = run_reverse(&b, pol, &v1, g1, &d1);
            ad_errclass ef = run_forward(&b, pol, &v2, g2, &d2);
            s.checks += 2;
            if (strcmp(outcome(er), want) != 0) report_status(&s, id, "reverse", er, &d1, want);
            if (strcmp(outcome(ef), want) != 0) report_status(&s, id, "forward", ef, &d2, want);
            if (strcmp(want, "ok") == 0 && !er && !ef)
                check_value_grad(&s, id, F[1], &b, pol, rv, rg);
        }
    next:
        if (case_failed) s.fail++;
        else s.pass++;
    }
    free(line);
    free(hdrline);
    if (ferror(f)) {
        printf("ERROR reading %s\n", path);
        bad = 1;
    }
    fclose(f);
    if (!have_header && !bad) {
        printf("ERROR %s: no header line\n", name);
        bad = 1;
    }
    if (!bad && s.cases != expect_cases) {
        printf("FAIL %s: %ld cases read, the corpus README promises %ld\n", name, s.cases,
               expect_cases);
        total_fail++;
    }
    print_stats(&s);
    total_fail += s.fail;
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    char dir[4096];
    if (argc > 1) {
        snprintf(dir, sizeof dir, "%s", argv[1]);
    } else {
        const char *top = getenv("top_srcdir");
        if (!top) {
            fprintf(stderr, "usage: %s CORPUS_DIR (or set top_srcdir)\n", argv[0]);
            return 99;
        }
        snprintf(dir, sizeof dir, "%s/tests/corpus", top);
    }
    tape = ad_tape_new();
    split_tape = ad_tape_new();
    work = ad_work_new();
    if (!tape || !split_tape || !work) {
        fprintf(stderr, "out of memory\n");
        return 99;
    }
    int bad = 0;
    /* the shared corpus's cases, the rows added for sinc, and for ln,
     * normpdf and normcdf, and for the step functions and the gamma family
     * (README.md) */
    bad |= run_file(dir, "grad.tsv", K_GRAD, 2000 + 50 + 20 + 31) < 0;
    bad |= run_file(dir, "hessian.tsv", K_HESS, 300 + 22 + 7 + 8) < 0;
    bad |= run_file(dir, "jvp.tsv", K_JVP, 300 + 16 + 3 + 4) < 0;
    bad |= run_file(dir, "edge.tsv", K_EDGE, 374 + 40 + 10 + 50) < 0;
    ad_tape_free(tape);
    ad_tape_free(split_tape);
    ad_work_free(work);
    if (bad) return 99;
    printf("%s\n", total_fail ? "FAILED" : "all corpus cases passed");
    return total_fail ? 1 : 0;
}
