/* corpus-distill entry point: parses options, then hands over to one engine call per mode. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("corpus-distill %s\n", CD_VERSION);
        return 0;
    }
    fprintf(stderr, "corpus-distill: usage: corpus-distill INPUT... -o DIR -- TARGET [ARGS]\n");
    return 2;
}
