/* help.c - --help: the options from their table (options.def), the
 * functions from the engine's list, one layout for every line; and
 * --completion-table: the same facts as lines for the shell completions
 * (completions/adcalc, _adcalc, adcalc.fish), so no completion guesses
 * from the words of --help. */
#include <string.h>
#include "help.h"
#include "options.h"

#define HELP_COL 27   /* where the descriptions start */

/* "  -e, --expr EXPR", "      --mode forward|reverse|auto" */
static void synopsis(cli_buf *b, const cli_optinfo *oi)
{
    size_t start = b->len;
    cli_buf_puts(b, oi->names[1] == '-' ? "      " : "  ");
    for (const char *p = oi->names;;) {
        size_t n = strcspn(p, "|");
        cli_buf_put(b, p, n);
        if (!p[n]) break;
        cli_buf_puts(b, ", ");
        p += n + 1;
    }
    if (oi->arg == CLI_ARG_OPTWORD)
        cli_buf_printf(b, "[=%s]", oi->meta);
    else if (oi->arg != CLI_ARG_NONE)
        cli_buf_printf(b, " %s", oi->meta);
    /* the description on the same line when there is room, else below */
    size_t w = b->len - start;
    if (w + 2 <= HELP_COL)
        cli_buf_printf(b, "%*s", (int)(HELP_COL - w), "");
    else
        cli_buf_printf(b, "\n%*s", HELP_COL, "");
}

static void description(cli_buf *b, const char *text)
{
    for (const char *p = text;;) {
        size_t n = strcspn(p, "\n");
        cli_buf_put(b, p, n);
        cli_buf_putc(b, '\n');
        if (!p[n]) break;
        cli_buf_printf(b, "%*s", HELP_COL, "");
        p += n + 1;
    }
}

void cli_help(cli_buf *b)
{
    cli_buf_puts(b,
                 "Usage: adcalc [OPTION]... -e EXPR [-at NAME=VALUE[,NAME=VALUE...]]\n"
                 "Evaluate an expression and its exact derivatives by automatic differentiation.\n"
                 "Programs: -e and -f take statements (name = expr; f(u) = expr; if, while, for).\n"
                 "Sessions: without -e or -f, statements from stdin; on a terminal, :help.\n"
                 "\n");
    for (size_t i = 0; i < cli_noptinfos; i++) {
        const cli_optinfo *oi = &cli_optinfos[i];
        if (oi->id < 0) {
            cli_buf_printf(b, "%s\n", oi->help);
            continue;
        }
        synopsis(b, oi);
        description(b, oi->help);
    }
    cli_buf_puts(b, "\n"
                    "Operators: + - * / ^ (power, right-assoc., binds tighter than unary -), ( )\n"
                    "Constants: pi e\n"
                    "Functions:\n");
    const char *name, *doc;
    for (size_t i = 0; (name = ad_function(i, &doc)) != NULL; i++) cli_buf_printf(b, "  %-13s %s\n", name, doc);
    cli_buf_puts(b, "\n"
                    "Exit status: 0 ok, 1 domain error, 2 usage error, 3 syntax or name error,\n"
                    "4 not differentiable under --nondiff strict, 5 I/O error or out of memory,\n"
                    "6 --check found a derivative that disagrees with finite differences, or an\n"
                    "--expect formula disagrees with adcalc's derivative.\n"
                    "\n"
                    "Example: adcalc -e 'x*y+sin(x)' -at x=2,y=3 --grad\n"
                    "Full documentation: man adcalc\n");
}

/* what a completion does with an option's value, by its kind */
static const char *completion_kind(cli_arg arg)
{
    switch (arg) {
    case CLI_ARG_NONE: return "flag";       /* no value */
    case CLI_ARG_FILE: return "file";       /* a file name */
    case CLI_ARG_EXPR: return "expr";       /* an expression: function names */
    case CLI_ARG_WORD: return "word";       /* one of the listed words */
    case CLI_ARG_OPTWORD: return "=word";   /* the same, only as --name=WORD */
    default: return "value";                /* something to type: nothing offered */
    }
}

/* one line a name, its fields separated by tabs:
 *   NAME  KIND  ARG  DESCRIPTION
 * KIND is flag, file, expr, word, =word or value for an option (see
 * completion_kind), function for a function name; ARG is the words of a
 * word or =word option separated by spaces, else the value's name in
 * --help (FILE, N, ...), empty for flag and function; DESCRIPTION is the
 * text of --help on one line. */
void cli_completion_table(cli_buf *b)
{
    for (size_t i = 0; i < cli_noptinfos; i++) {
        const cli_optinfo *oi = &cli_optinfos[i];
        if (oi->id < 0) continue;
        for (const char *p = oi->names;;) {
            size_t n = strcspn(p, "|");
            cli_buf_put(b, p, n);
            cli_buf_printf(b, "\t%s\t", completion_kind(oi->arg));
            int words = oi->arg == CLI_ARG_WORD || oi->arg == CLI_ARG_OPTWORD;
            for (const char *m = oi->meta; *m; m++) cli_buf_putc(b, words && *m == '|' ? ' ' : *m);
            cli_buf_putc(b, '\t');
            for (const char *h = oi->help; *h; h++) cli_buf_putc(b, *h == '\n' ? ' ' : *h);
            cli_buf_putc(b, '\n');
            if (!p[n]) break;
            p += n + 1;
        }
    }
    const char *name, *doc;
    for (size_t i = 0; (name = ad_function(i, &doc)) != NULL; i++) cli_buf_printf(b, "%s\tfunction\t\t%s\n", name, doc);
}
