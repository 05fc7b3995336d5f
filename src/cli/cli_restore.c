/* placeholder */
#include "cli.h"
int cli_restore(const struct cli_opts *o) { (void)o; return CLI_EXIT_USAGE; }
