/* output.c - printing diagnostics (message, source line, caret; or a JSON
 * object) and --help, whose function list comes from the table of
 * primitives.  Results are printed by results.c. */
#include <string.h>
#include "output.h"
#include "numfmt.h"
#include "ops.h"

/* the source line holding the error, cut to a window around the column,
 * then a caret under the column */
static void echo(FILE *f, const cli_source *s, int line, int col)
{
    const char *p = s->src, *end = s->src + s->len;
    for (int l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        p = nl + 1;
    }
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    size_t len = (size_t)(eol - p), c = col > 0 ? (size_t)col - 1 : 0, from = 0;
    const size_t width = 72;
    if (c > width - 20) from = c - (width - 20);
    size_t to = from + width < len ? from + width : len;
    fputs("  ", f);
    if (from) fputs("...", f);
    for (size_t i = from; i < to; i++) {
        unsigned char ch = (unsigned char)p[i];
        putc(ch < 32 || ch >= 127 ? (ch == '\t' ? ' ' : '?') : ch, f);
    }
    if (to < len) fputs("...", f);
    fputs("\n  ", f);
    for (size_t i = (from ? from - 3 : 0); i < c; i++) putc(' ', f);
    fputs("^\n", f);
}

void cli_print_error(FILE *f, const cli_options *o, const cli_source *s, const ad_diag *d)
{
    if (o && o->format == CLI_FMT_JSON) {
        fputs("{\"error\": {\"tag\": ", f);
        const char *tag = ad_err_tag(d->cls);
        adi_fput_json_string(f, tag, strlen(tag));
        fputs(", \"message\": ", f);
        adi_fput_json_string(f, d->msg, strlen(d->msg));
        if (s && d->line > 0) {
            fputs(", \"source\": ", f);
            adi_fput_json_string(f, s->name, strlen(s->name));
            fprintf(f, ", \"line\": %d, \"column\": %d", d->line + s->line_shift,
                    d->col + (s->echo && d->line == s->echo_at ? s->col_shift : 0));
        }
        fputs("}}\n", f);
        return;
    }
    if (s && d->line > 0 && s->echo && d->line == s->echo_at) {
        /* a statement that starts within an input line: that line, its columns */
        cli_source line = {.name = s->name, .src = (char *)s->echo, .len = s->echo_len};
        int col = d->col + s->col_shift;
        fprintf(f, "adcalc: %s:%d:%d: error: %s [%s]\n", s->name, d->line + s->line_shift, col, d->msg,
                ad_err_tag(d->cls));
        echo(f, &line, 1, col);
    } else if (s && d->line > 0) {
        fprintf(f, "adcalc: %s:%d:%d: error: %s [%s]\n", s->name, d->line + s->line_shift, d->col, d->msg,
                ad_err_tag(d->cls));
        echo(f, s, d->line, d->col);
    } else if (d->cls == AD_E_USAGE) {
        fprintf(f, "adcalc: error: %s; see 'adcalc --help' [%s]\n", d->msg, ad_err_tag(d->cls));
    } else {
        fprintf(f, "adcalc: error: %s [%s]\n", d->msg, ad_err_tag(d->cls));
    }
}

void cli_print_help(FILE *f)
{
    fputs(
"Usage: adcalc [OPTION]... -e EXPR [-at NAME=VALUE[,NAME=VALUE...]]\n"
"Evaluate an expression and its exact derivatives by automatic differentiation.\n"
"\n"
"Input:\n"
"  -e, --expr EXPR          an expression; repeat for several outputs\n"
"  -f, --file FILE          read an expression from FILE ('-' for stdin)\n"
"  -at, --at NAME=VALUE[,NAME=VALUE...]\n"
"                           the point: a value for each variable (repeatable)\n"
"Derivatives:\n"
"      --grad               gradient w.r.t. every -at variable, in -at order\n"
"      --wrt NAME[,NAME...] gradient w.r.t. these variables only (implies --grad)\n"
"      --seed NAME=VALUE[,...]  directional derivative J*v along this direction\n"
"      --jacobian           the Jacobian of all -e expressions (rows) with\n"
"                           respect to the -at variables (columns)\n"
"      --adjoint W1,W2,...  the vector-Jacobian product w^T J, one weight per -e\n"
"      --hessian            the Hessian of each expression; with --seed, H*v\n"
"      --order K            derivatives f', ..., f^(K) of a function of one\n"
"                           variable, or along the --seed direction (K <= 100)\n"
"      --check              compare the gradient with finite differences\n"
"                           (exit status 6 when a component disagrees)\n"
"      --step-scale S       finite-difference step S*sqrt(eps)*max(1,|x|) (1)\n"
"      --rtol R, --atol A   --check passes when |ad-fd| <= A + R*|ad|\n"
"                           (defaults 1e-5 and 1e-7)\n"
"      --mode forward|reverse|auto\n"
"                           engine: dual numbers or the reverse-swept tape\n"
"                           (default: reverse for --grad, forward for --seed,\n"
"                           auto for --jacobian: forward when n <= m)\n"
"      --nondiff strict|zero-subgrad\n"
"                           at a kink or singular derivative: fail, or use 0\n"
"                           (default strict)\n"
"Batch (one recorded tape, replayed for every row):\n"
"      --points FILE        one point per row of FILE ('-': stdin); a header\n"
"                           line names the columns (comma, tab or blanks)\n"
"      --vars NAME[,...]    the columns, when FILE has no header line\n"
"      --binary             rows of little-endian float64 in and out\n"
"      --on-error stop|skip|nan\n"
"                           a row that fails: stop (default), leave it out,\n"
"                           or print it as nan; the error names its line\n"
"  -j, --jobs N             worker threads (default 1; 0: all cores)\n"
"Output:\n"
"      --format text|json   text for people (default) or JSON Lines\n"
"      --precision N        print N significant digits (1-17) instead of the\n"
"                           shortest form that reads back exactly\n"
"      --no-optimize        keep the tape as recorded (no constant folding,\n"
"                           shared subexpressions or squares)\n"
"      --stats              tape sizes before and after optimisation (stderr)\n"
"      --dump-tape[=text|tsv|json|dot]\n"
"                           print the recorded tape instead of the result\n"
"                           (dot: a Graphviz graph, for dot -Tsvg)\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Operators: + - * / ^ (power, right-assoc., binds tighter than unary -), ( )\n"
"Constants: pi e\n"
"Functions:\n", f);
    for (size_t i = 0; i < adi_nfunctions; i++) {
        const adi_fninfo *fn = &adi_functions[i];
        if (fn->nargs_min == 0) continue;
        fprintf(f, "  %-13s %s\n", fn->name, fn->doc);
    }
    fputs(
"\n"
"Exit status: 0 ok, 1 domain error, 2 usage error, 3 syntax or name error,\n"
"4 not differentiable under --nondiff strict, 5 I/O error or out of memory,\n"
"6 --check found a derivative that disagrees with finite differences.\n"
"\n"
"Example: adcalc -e 'x*y+sin(x)' -at x=2,y=3 --grad\n"
"Full documentation: man adcalc\n", f);
}
