/* libFuzzer harness for the state file reader: the bytes, their trailing checksum made right
 * (else nearly every mutation would stop at the checksum), are loaded with cd_table_load, as a
 * run reads a state a crash, a full disk or another tool may have left. A table that loads must
 * save and load back to the same bytes, and every label's best example must show it. Built and
 * run by tests/fuzz/run.sh. */
#include "common/cd_hash.h"
#include "table/cd_table.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1), *saved = NULL, *again = NULL;
    size_t slen = 0, alen = 0;
    struct cd_table *t = NULL, *u = NULL;
    struct cd_table_meta meta, meta2;
    struct cd_error err;
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (size >= 16) {
        struct cd_hash h = cd_hash_bytes(buf, size - 16);
        for (int i = 0; i < 8; i++) {
            buf[size - 16 + i] = (uint8_t)(h.lo >> (8 * i));
            buf[size - 8 + i] = (uint8_t)(h.hi >> (8 * i));
        }
    }
    if (cd_table_load(&t, &meta, buf, size, 1 << 20, &err) != CD_OK) {
        if (t || !memchr(err.msg, '\0', sizeof err.msg) || strchr(err.msg, '\n'))
            abort(); /* a failure leaves nothing and says why on one line */
        free(buf);
        return 0;
    }
    for (size_t i = 0; i < cd_table_n_labels(t); i++) {
        const struct cd_table_label *l = cd_table_label_at(t, i);
        if (!cd_labelset_has(&l->best->labels, l->id) || cd_table_find(t, l->id) != l)
            abort();
    }
    if (cd_table_save(t, &meta, &saved, &slen, &err) != CD_OK ||
        cd_table_load(&u, &meta2, saved, slen, 1 << 20, &err) != CD_OK ||
        cd_table_save(u, &meta2, &again, &alen, &err) != CD_OK || alen != slen ||
        memcmp(saved, again, slen) != 0)
        abort(); /* what loads, round-trips */
    cd_table_meta_release(&meta);
    cd_table_meta_release(&meta2);
    cd_table_free(t);
    cd_table_free(u);
    free(saved);
    free(again);
    free(buf);
    return 0;
}
