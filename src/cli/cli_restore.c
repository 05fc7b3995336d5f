/* The restore mode: "restore DIR [GENERATION]" puts one of the outputs that runs replaced (kept in
 * DIR.generations, cd_generations.h) back as DIR, its manifest, state and reproducers (where
 * --crashes, --manifest and --state say, as for the run), under the output's lock; the output it
 * replaces is kept as a generation in turn, so a restore is undone by another. "restore --list
 * DIR" lists them, newest first. */
#include "common/cd_file.h"
#include "output/cd_emit.h"
#include "output/cd_generations.h"
#include "output/cd_manifest.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returns an owned "stem + suffix". */
static char *with(const char *stem, const char *suffix)
{
    size_t n = strlen(stem);
    char *s = malloc(n + strlen(suffix) + 1);
    if (s) {
        memcpy(s, stem, n);
        strcpy(s + n, suffix);
    }
    return s;
}

/* One line for generation name of store: its seeds, their bytes and labels, from its manifest. */
static void print_generation(const char *store, const char *name, bool newest)
{
    char path[8400], b[32], what[160] = "  (no readable manifest)";
    struct cd_manifest m;
    snprintf(path, sizeof path, "%s/%s/manifest.json", store, name);
    if (cd_manifest_read(path, &m, NULL) == CD_OK) {
        uint64_t bytes = 0;
        for (size_t i = 0; i < m.n_seeds; i++)
            bytes += m.seeds[i].size;
        snprintf(what, sizeof what, "  %zu seeds, %s, %zu labels, %zu reproducers", m.n_seeds,
                 cli_bytes(bytes, b, sizeof b), m.n_labels, m.n_reproducers);
        cd_manifest_release(&m);
    }
    cli_line(stdout, "%s%s%s", name, what, newest ? "  (newest)" : "");
}

int cli_restore(const struct cli_opts *o)
{
    struct cd_error err;
    int code = CLI_EXIT_OK;
    char **names = NULL;
    size_t n = 0;
    struct cd_emit_lock lock = {-1, NULL};
    /* The paths of a run's defaults: DIR or DIR.tar.zst, DIR.crashes, DIR.manifest.json... */
    char *stem = with(o->out_dir, "");
    size_t sl = stem ? strlen(stem) : 0;
    while (sl > 1 && stem[sl - 1] == '/')
        stem[--sl] = '\0';
    bool tar = sl > 8 && strcmp(stem + sl - 8, ".tar.zst") == 0;
    if (tar)
        stem[sl - 8] = '\0';
    char *seeds = stem ? (tar ? with(stem, ".tar.zst") : with(stem, "")) : NULL;
    /* beside DIR, unless the run was told otherwise (the same options) */
    char *crashes = o->crashes_dir ? strdup(o->crashes_dir) : stem ? with(stem, ".crashes") : NULL;
    char *manifest = o->manifest ? strdup(o->manifest) : stem ? with(stem, ".manifest.json") : NULL;
    char *state = o->state ? strdup(o->state) : stem ? with(stem, ".state") : NULL;
    char *store = stem ? with(stem, ".generations") : NULL;
    if (!seeds || !crashes || !manifest || !state || !store) {
        cli_msg("out of memory");
        code = CLI_EXIT_NOMEM;
        goto out;
    }
    if (cd_generations_list(store, &names, &n, &err) != CD_OK) {
        cli_msg("%s", err.msg);
        code = CLI_EXIT_INPUT;
        goto out;
    }
    if (o->restore_list) {
        if (n == 0 && o->verbosity >= 0)
            cli_msg("no generation of '%s' kept in '%s'", o->out_dir, store);
        for (size_t i = 0; i < n; i++)
            print_generation(store, names[i], i == 0);
        goto out;
    }
    const char *pick = o->restore_gen ? o->restore_gen : n ? names[0] : NULL;
    size_t k = 0;
    while (pick && k < n && strcmp(names[k], pick) != 0)
        k++;
    if (!pick || k == n) {
        cli_msg(pick ? "no generation '%s' in '%s' (restore --list DIR lists them)"
                     : "no generation%s kept in '%s'", pick ? pick : "", store);
        code = CLI_EXIT_INPUT;
        goto out;
    }
    char unsafe[4096];
    if (geteuid() == 0 && !o->allow_root &&
        (cd_file_unsafe_for_root(seeds, unsafe, sizeof unsafe) ||
         cd_file_unsafe_for_root(store, unsafe, sizeof unsafe))) {
        cli_msg("refusing to run as root in '%s': another user owns it or can write in it "
                "(--allow-root runs anyway)", unsafe);
        code = CLI_EXIT_OUTPUT;
        goto out;
    }
    /* Under the output's lock: never while a run of it writes. */
    struct cd_emit_opts eo = {seeds, crashes, manifest, false, tar, false, state,
                              cli_manifest_owned, NULL, NULL, NULL};
    if (cd_emit_lock(&eo, &lock, &err) != CD_OK) {
        cli_msg("%s", err.msg);
        code = CLI_EXIT_OUTPUT;
        goto out;
    }
    if (cd_emit_check(&eo, NULL, &err) != CD_OK) {
        cli_msg("%s (restore replaces only an output of ours)", err.msg);
        code = CLI_EXIT_OUTPUT;
        goto out;
    }
    struct cd_gen_output now = {seeds, tar, crashes, manifest, state};
    char *kept = NULL;
    if (cd_generations_keep(&now, store, &kept, &err) != CD_OK ||
        cd_generations_restore(&now, store, names[k], &err) != CD_OK) {
        free(kept);
        cli_msg("%s", err.msg);
        code = CLI_EXIT_OUTPUT;
        goto out;
    }
    if (o->verbosity >= 0)
        cli_msg("put back generation '%s' as '%s'%s%s%s", names[k], seeds,
                kept ? "; what it replaced is generation '" : "", kept ? kept : "",
                kept ? "'" : "");
    free(kept);
out:
    cd_emit_unlock(&lock);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(stem);
    free(seeds);
    free(crashes);
    free(manifest);
    free(state);
    free(store);
    return code;
}
