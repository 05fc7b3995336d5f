/* Build-time generator of the bash completion script (build/corpus-distill.bash, installed as
 * share/bash-completion/completions/corpus-distill): prints it from the option tables that drive
 * parsing and --help, so completion cannot drift from them. Not installed itself. */
#include "cli.h"

#include <stdio.h>

int main(void)
{
    cli_print_completion(stdout);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
