/* dump.c - the tape listing (--dump-tape), format version 1.
 *
 * One row per node in tape order (inputs, constants, operations), columns:
 *   index op a b param value d_a d_b adjoint synopsis
 * where a, b are operand slots ('-' where none), param is an input's name or
 * a constant's literal ('-' otherwise), d_a, d_b the local partials used by
 * the sweep, adjoint the reverse-mode adjoint ('-' where the node has none).
 * text: '#' header lines, then aligned rows; tsv: rows only, tab-separated;
 * json: one object with a "nodes" array; dot: a Graphviz digraph of the
 * same nodes (the names the source gives them, op, value, adjoint in 6
 * digits; inputs and the output marked, guards as dashed diamonds), edges
 * from operands to operations, a binary one's labelled A and B as in its
 * synopsis, under a one-line title.  A guard (control flow) has the
 * synopsis "guard tA > tB": it assigns nothing.  Documented in adcalc(1). */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"
#include "numfmt.h"

typedef struct {
    double p[2];         /* the local partials as numbers (for json) */
    char idx[16], a[16], b[16], val[32], da[32], db[32], adj[32], syn[160];
    const char *op, *param;
    size_t paramlen;
} row;

static void fill(row *r, const ad_tape *t, const ad_work *w, ad_policy pol, size_t i)
{
    const ad_instr c = t->code[i];
    snprintf(r->idx, sizeof r->idx, "%zu", i);
    r->op = adi_ops[c.op].name;
    strcpy(r->a, "-");
    strcpy(r->b, "-");
    strcpy(r->da, "-");
    strcpy(r->db, "-");
    strcpy(r->adj, "-");
    r->param = "-";
    r->paramlen = 1;
    adi_fmt_double(r->val, sizeof r->val, w->val[i]);
    char self[24];
    snprintf(self, sizeof self, "t%zu", i);
    if (c.op == AD_OP_INPUT || c.op == AD_OP_CONST) {
        r->param = t->pool + t->text[i].off;
        r->paramlen = t->text[i].len;
        char q[64];
        size_t l = r->paramlen < 40 ? r->paramlen : 40;
        memcpy(q, r->param, l);
        strcpy(q + l, r->paramlen > 40 ? "..." : "");
        snprintf(r->syn, sizeof r->syn, "%s = %s", self, q);
    } else {
        char A[24] = "", B[24] = "", s[120];
        snprintf(r->a, sizeof r->a, "%d", c.a);
        snprintf(A, sizeof A, "t%d", c.a);
        if (c.b >= 0) {
            snprintf(r->b, sizeof r->b, "%d", c.b);
            snprintf(B, sizeof B, "t%d", c.b);
        }
        adi_synopsis(s, sizeof s, (int)c.op, A, B);
        if (adi_op_is_guard(c.op))   /* a decision of the path: it assigns nothing */
            snprintf(r->syn, sizeof r->syn, "guard %s", s);
        else
            snprintf(r->syn, sizeof r->syn, "%s = %s", self, s);
        double a = w->val[c.a], b = c.b >= 0 ? w->val[c.b] : 0, p[2];
        unsigned char st[2];
        adi_op_partials((int)c.op, a, b, w->val[i], p, st);
        int aa = w->act[c.a], ab = c.b >= 0 && w->act[c.b];
        adi_nondiff nd;   /* the partials the sweep used: the policy's */
        adi_nondiff_init(&nd);
        unsigned zero = adi_policy(t, w->val, i, st, aa, ab, pol, &nd);
        if (zero & 1) p[0] = 0;
        if (zero & 2) p[1] = 0;
        r->p[0] = p[0];
        r->p[1] = p[1];
        adi_fmt_double(r->da, sizeof r->da, p[0]);
        if (c.b >= 0) adi_fmt_double(r->db, sizeof r->db, p[1]);
    }
    if (w->has_adj && w->act[i]) adi_fmt_double(r->adj, sizeof r->adj, w->adj[i]);
}

static void header_expr(FILE *f, const char *src, size_t len)
{
    size_t max = 1000;
    for (size_t i = 0; i < len && i < max; i++) {
        unsigned char ch = (unsigned char)src[i];
        putc(ch == '\n' || ch == '\t' || ch == '\r' ? ' ' : (ch < 32 || ch >= 127 ? '?' : ch), f);
    }
    if (len > max) fputs("...", f);
}

/* a DOT string: quotes and backslashes escaped, other odd bytes dropped */
static void dot_string(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') putc('\\', f);
        if (c >= 32 && c < 127) putc(c, f);
        else if (c == '\n' || c == '\t') putc(' ', f);
    }
}

/* the picture abbreviates its numbers to 6 significant digits (the
 * listings keep them all) */
static char *pic_number(char *buf, size_t n, double x) { return ad_fmt_number(buf, n, x, 6); }

static int idbyte(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

#define TITLE_MAX 80

/* The picture's title: the source on one line, as ad_next_stmt splits it:
 * comments dropped, blanks squeezed, a line end that ends a statement
 * (after a name, a number, ')' or '}', outside parentheses) and ';' as
 * "; ", cut after TITLE_MAX characters with "...".  buf holds
 * TITLE_MAX + 4 bytes. */
static void title(char *buf, const char *s, size_t n)
{
    size_t k = 0;
    int depth = 0, gap = 0;   /* gap: 1 a blank to write, 2 a statement's end */
    char last = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '#') {
            while (i + 1 < n && s[i + 1] != '\n') i++;
            continue;
        }
        if (c == ';' || (c == '\n' && depth <= 0 && (idbyte(last) || last == '.' || last == ')' || last == '}'))) {
            gap = 2;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            if (!gap) gap = 1;
            continue;
        }
        /* "} else" and "{ a = 1 }" go on without a "; " */
        if (gap == 2 && (c == '}' || last == '{' ||
                         (n - i >= 4 && !memcmp(s + i, "else", 4) && (n - i == 4 || !idbyte((unsigned char)s[i + 4])))))
            gap = 1;
        const char *sep = !k ? "" : gap == 2 ? "; " : gap ? " " : "";
        if (k + strlen(sep) + 1 > TITLE_MAX) {
            strcpy(buf + k, "...");
            return;
        }
        strcpy(buf + k, sep);
        k += strlen(sep);
        buf[k++] = c >= 32 && c < 127 ? (char)c : '?';
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        last = (char)c;
        gap = 0;
    }
    buf[k] = 0;
}

/* 1 when a constant's literal is a number (not pi or e, written by name) */
static int numeric(const char *s, size_t n)
{
    if (!n || !(s[0] == '.' || s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789.eE+-", s[i])) return 0;
    return 1;
}

/* up to 3 of the source names of node i (names[*j...], sorted by node;
 * *j moves past them), "a, b, ..."; an input's own name is not repeated */
static void node_names(FILE *f, const ad_tape *t, size_t i, size_t *j, int *any)
{
    const adi_name *nm = t->names;
    const adi_text *shown[3];
    size_t nshown = 0;
    int more = 0;
    *any = 0;
    while (*j < t->nnames && (size_t)nm[*j].node < i) (*j)++;
    for (; *j < t->nnames && (size_t)nm[*j].node == i; (*j)++) {
        const adi_text *x = &nm[*j].text;
        const char *xs = t->pool + x->off;
        int seen = i < t->ninputs && t->text[i].len == x->len && !memcmp(t->pool + t->text[i].off, xs, x->len);
        for (size_t k = 0; !seen && k < nshown; k++)
            seen = shown[k]->len == x->len && !memcmp(t->pool + shown[k]->off, xs, x->len);
        if (seen) continue;
        if (nshown == 3) {
            more = 1;
            continue;
        }
        shown[nshown++] = x;
        fputs(*any ? ", " : "", f);
        dot_string(f, xs, x->len > 40 ? 37 : x->len);
        if (x->len > 40) fputs("...", f);
        *any = 1;
    }
    if (more) fputs(", ...", f);
}

static void dump_dot(FILE *f, const ad_tape *t, const ad_work *w, const char *src, size_t srclen)
{
    size_t n = t->n, j = 0;
    char head[TITLE_MAX + 4], num[40];
    title(head, src, srclen);
    fputs("digraph tape {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n"
          "  edge [fontname=\"monospace\", fontsize=10];\n  label=\"", f);
    dot_string(f, head, strlen(head));
    fputs("\";\n  labelloc=t;\n", f);
    for (size_t i = 0; i < n; i++) {
        const ad_instr c = t->code[i];
        int is_out = 0, named;
        for (size_t o = 0; o < t->nout; o++) is_out |= (size_t)t->outs[o] == i;
        fprintf(f, "  t%zu [label=\"t%zu: ", i, i);
        node_names(f, t, i, &j, &named);
        if (named) fputs(" = ", f);
        if (adi_op_is_guard(c.op)) {
            char A[24], B[24], s[120];
            snprintf(A, sizeof A, "t%d", c.a);
            snprintf(B, sizeof B, "t%d", c.b);
            adi_synopsis(s, sizeof s, (int)c.op, A, B);
            fprintf(f, "guard %s", s);
        } else {
            fputs(adi_ops[c.op].name, f);
        }
        if (c.op == AD_OP_INPUT || c.op == AD_OP_CONST) {
            const char *p = t->pool + t->text[i].off;
            size_t pl = t->text[i].len;
            putc(' ', f);
            if (c.op == AD_OP_CONST && numeric(p, pl)) fputs(pic_number(num, sizeof num, w->val[i]), f);
            else dot_string(f, p, pl > 40 ? 40 : pl);
        }
        fprintf(f, "\\nvalue %s", pic_number(num, sizeof num, w->val[i]));
        if (w->has_adj && w->act[i]) fprintf(f, "\\nadjoint %s", pic_number(num, sizeof num, w->adj[i]));
        if (is_out) fputs("\\noutput", f);
        fputs("\"", f);
        if (c.op == AD_OP_INPUT) fputs(", shape=invhouse, style=filled, fillcolor=lightblue", f);
        else if (c.op == AD_OP_CONST) fputs(", shape=plaintext", f);
        else if (adi_op_is_guard(c.op)) fputs(", shape=diamond, style=dashed", f);
        if (is_out) fputs(", peripheries=2, style=filled, fillcolor=lightyellow", f);
        fputs("];\n", f);
    }
    /* the operands of a binary operation labelled as in its synopsis:
     * A / B, pow(A, B) */
    for (size_t i = 0; i < n; i++) {
        const ad_instr c = t->code[i];
        if (c.op == AD_OP_INPUT || c.op == AD_OP_CONST) continue;
        if (c.b < 0) {
            fprintf(f, "  t%d -> t%zu;\n", c.a, i);
        } else {
            fprintf(f, "  t%d -> t%zu [label=\"A\"];\n", c.a, i);
            fprintf(f, "  t%d -> t%zu [label=\"B\"];\n", c.b, i);
        }
    }
    fputs("}\n", f);
}

int ad_dump(FILE *f, const ad_tape *t, const ad_work *w, ad_policy pol, ad_dump_format fmt, const char *src,
            size_t srclen)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    size_t bytes = n * ad_node_bytes();
    row r;
    if (fmt == AD_DUMP_DOT) {
        dump_dot(f, t, w, src, srclen);
    } else if (fmt == AD_DUMP_JSON) {
        fprintf(f, "{\"format\": \"adcalc-tape\", \"version\": %d, \"expr\": ", AD_TAPE_FORMAT_VERSION);
        adi_fput_json_string(f, src, srclen);
        fprintf(f, ", \"inputs\": %zu, \"constants\": %zu, \"operations\": %zu, \"bytes\": %zu, "
                   "\"output\": %d, \"nodes\": [\n", ni, nc, n - ni - nc, bytes, t->nout ? t->outs[0] : -1);
        for (size_t i = 0; i < n; i++) {
            fill(&r, t, w, pol, i);
            const ad_instr c = t->code[i];
            char num[40];
            fprintf(f, "  {\"index\": %zu, \"op\": \"%s\", \"args\": [", i, r.op);
            if (c.op != AD_OP_INPUT && c.op != AD_OP_CONST) {
                fprintf(f, "%d", c.a);
                if (c.b >= 0) fprintf(f, ", %d", c.b);
            }
            fputs("], \"param\": ", f);
            if (c.op == AD_OP_INPUT || c.op == AD_OP_CONST) adi_fput_json_string(f, r.param, r.paramlen);
            else fputs("null", f);
            fprintf(f, ", \"value\": %s, \"partials\": [", ad_fmt_json_number(num, sizeof num, w->val[i], 0));
            if (c.op != AD_OP_INPUT && c.op != AD_OP_CONST) {
                fputs(ad_fmt_json_number(num, sizeof num, r.p[0], 0), f);
                if (c.b >= 0) fprintf(f, ", %s", ad_fmt_json_number(num, sizeof num, r.p[1], 0));
            }
            fputs("], \"adjoint\": ", f);
            if (r.adj[0] == '-' && r.adj[1] == 0) fputs("null", f);
            else fputs(ad_fmt_json_number(num, sizeof num, w->adj[i], 0), f);
            fputs(", \"synopsis\": ", f);
            adi_fput_json_string(f, r.syn, strlen(r.syn));
            fprintf(f, "}%s\n", i + 1 < n ? "," : "");
        }
        fputs("]}\n", f);
    } else if (fmt == AD_DUMP_TSV) {
        for (size_t i = 0; i < n; i++) {
            fill(&r, t, w, pol, i);
            fprintf(f, "%s\t%s\t%s\t%s\t%.*s\t%s\t%s\t%s\t%s\t%s\n", r.idx, r.op, r.a, r.b,
                    (int)r.paramlen, r.param, r.val, r.da, r.db, r.adj, r.syn);
        }
    } else {
        fprintf(f, "# adcalc-tape %d\n# expr: ", AD_TAPE_FORMAT_VERSION);
        header_expr(f, src, srclen);
        fprintf(f, "\n# nodes: %zu (%zu input%s, %zu constant%s, %zu operation%s); "
                   "%zu bytes (%zu per node: %zu instruction + %zu value)\n",
                n, ni, ni == 1 ? "" : "s", nc, nc == 1 ? "" : "s", n - ni - nc, n - ni - nc == 1 ? "" : "s",
                bytes, ad_node_bytes(), sizeof(ad_instr), sizeof(double));
        /* column widths: measured over the rows and the column names */
        int wi = 5, wo = 2, wa = 1, wb = 1, wp = 5, wv = 5, wda = 3, wdb = 3, wj = 7;
        for (size_t i = 0; i < n; i++) {
            fill(&r, t, w, pol, i);
#define W(v, s) if ((int)strlen(s) > v) v = (int)strlen(s)
            W(wi, r.idx); W(wo, r.op); W(wa, r.a); W(wb, r.b); W(wv, r.val);
            W(wda, r.da); W(wdb, r.db); W(wj, r.adj);
#undef W
            int pl = r.paramlen > 40 ? 40 : (int)r.paramlen;
            if (pl > wp) wp = pl;
        }
        fprintf(f, "# %*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %*s  %*s  %s\n",
                wi, "index", wo, "op", wa, "a", wb, "b", wp, "param", wv, "value",
                wda, "d_a", wdb, "d_b", wj, "adjoint", "synopsis");
        for (size_t i = 0; i < n; i++) {
            fill(&r, t, w, pol, i);
            char p[48];
            size_t l = r.paramlen > 40 ? 37 : r.paramlen;
            memcpy(p, r.param, l);
            strcpy(p + l, r.paramlen > 40 ? "..." : "");
            fprintf(f, "  %*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %*s  %*s  %s\n", wi, r.idx, wo, r.op,
                    wa, r.a, wb, r.b, wp, p, wv, r.val, wda, r.da, wdb, r.db, wj, r.adj, r.syn);
        }
    }
    return ferror(f) ? -1 : 0;
}
