/* corpus-distill entry point: parses options into a struct, then hands over to one mode (distill,
 * cmin or audit). Only main.c and cli_*.c read argv and the environment, print, or exit. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    struct cli_opts o;
    int code;
    if (argc <= 1) { /* the bare command: the usage, not an error about what is missing */
        cli_print_help(stderr, NULL);
        return CLI_EXIT_USAGE;
    }
    if (!cli_parse(argc, argv, &o)) {
        cli_opts_release(&o);
        return o.cmin ? 1 : CLI_EXIT_USAGE; /* afl-cmin's status for any error */
    }
    switch (o.mode) {
    case CLI_MODE_HELP:
        cli_print_help(stdout, o.help_page);
        code = CLI_EXIT_OK;
        break;
    case CLI_MODE_AUDIT_HELP:
        cli_print_audit_help(stdout);
        code = CLI_EXIT_OK;
        break;
    case CLI_MODE_CMIN_HELP:
        cli_print_cmin_help(stdout);
        code = CLI_EXIT_OK;
        break;
    case CLI_MODE_VERSION:
        cli_line(stdout, "corpus-distill %s", CD_VERSION);
        code = CLI_EXIT_OK;
        break;
    case CLI_MODE_AUDIT:
        code = cli_audit(&o);
        break;
    case CLI_MODE_RESTORE:
        code = cli_restore(&o);
        break;
    case CLI_MODE_DISTILL:
    default:
        code = o.cmin ? cli_cmin(&o) : cli_run(&o);
        break;
    }
    cli_opts_release(&o);
    return code;
}
