/* stub_readline.c - a library of readline's name with readline alone in
 * it: a session that loads it finds add_history missing, says so and
 * reads plain lines (tests/repl.test). */
#include <stddef.h>

char *readline(const char *prompt)
{
    (void)prompt;
    return NULL;
}
