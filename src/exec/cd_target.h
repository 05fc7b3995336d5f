/* One target of a run, declared once: built from the command line (its name, its executor's
 * options with its arguments, its binary's SHA-1, its identity), run by the engine's workers
 * (which record what its executor learned), and written from there into the state's identity
 * and the manifest. A run of one target is a list of one. */
#ifndef CD_TARGET_H
#define CD_TARGET_H

#include "cd_exec.h"

struct cd_target {
    const char *name;           /* its name in labels, views and the manifest */
    struct cd_exec_opts opts;   /* its executor's options, its arguments among them */
    char sha1[41];              /* its binary's SHA-1 hex, "" when it could not be read */
    uint64_t id;                /* cd_target_id: what the seen-set keys its candidates by */
    struct cd_exec_info info;   /* what its first worker's executor learned, once it started */
};

/* The identity of t for the seen-set: a hash of its binary's SHA-1 and its arguments, so that
 * a candidate run on one build or command line is run again on another. */
uint64_t cd_target_id(const struct cd_target *t);

/* The directory of t's view in views (DIR.by-target): "views/NAME" into buf (cap bytes); the one
 * place a view's path is made. Returns buf. */
const char *cd_target_view_path(const char *views, const struct cd_target *t, char *buf,
                                size_t cap);

#endif
