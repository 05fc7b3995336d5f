/* libFuzzer harness for the manifest reader: the bytes are written to a file and read back with
 * cd_manifest_read, as audit and the output check read a manifest a user or another tool may have
 * edited; what parses is then looked up as audit does. Built and run by tests/fuzz/run.sh. */
#include "output/cd_manifest.h"
#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("manifest", data, size);
    struct cd_manifest m;
    struct cd_error err;
    if (cd_manifest_read(path, &m, &err) == CD_OK) {
        for (size_t i = 0; i < m.n_seeds; i++)
            if (cd_manifest_find_seed(&m, m.seeds[i].sha1) == NULL)
                abort(); /* every seed the reader returns can be found by its name */
        for (size_t i = 0; i < m.n_labels; i++)
            if (cd_manifest_find_label(&m, m.labels[i].id) == NULL)
                abort();
        cd_manifest_release(&m);
    } else if (!memchr(err.msg, '\0', sizeof err.msg) || strchr(err.msg, '\n')) {
        abort(); /* a failure is one line */
    }
    unlink(path);
    return 0;
}
