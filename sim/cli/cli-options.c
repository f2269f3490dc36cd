/* Helpers every subcommand shares: option parsing and error lines.
 *
 * Errors are one line on stderr, "nvlsim CMD: what was wrong", so scripts
 * and people can both read them.
 */
#include "cli/cli.h"

#include <stdio.h>

void
cli_print_error(const char *command, const GError *error)
{
    fprintf(stderr, "nvlsim%s%s: %s\n", command ? " " : "", command ? command : "", error->message);
}

bool
cli_parse_options(GOptionContext *context, const char *command, int *argc, char ***argv)
{
    g_autoptr(GError) error = NULL;
    if (g_option_context_parse(context, argc, argv, &error))
        return true;
    cli_print_error(command, error);
    return false;
}
