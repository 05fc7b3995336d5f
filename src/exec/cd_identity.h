/* A run's identity, as its state file records it: the settings that change labels and, for each
 * target, its binary's SHA-1, map size and arguments, built and read back as fields. A state is
 * warm for a run of the same identity; a target is the same target when its three fields are.
 * Every form ever written is read:
 *
 *   one target   "args=ARGS; timeout_ms=T; mem_limit_mb=M; edges_only=E; map_size=S;
 *                 crash_exitcode=C[; crash_frames=F][; shard=K/N]"
 *                (its SHA-1 is the state header's; crash_frames came later)
 *   several      "timeout_ms=T; ...; crash_exitcode=C[; crash_frames=F]"
 *                then "\ntarget SHA1 map_size=S[ KEY=VALUE]... args=ARGS" for each target
 *                (KEY=VALUE: a setting given for that target alone), "[; shard=K/N]"
 *
 * The shared settings are "key=value" pairs in the order the settings table gives them, values
 * without ';'; the arguments are joined by blanks and may hold anything but a newline. */
#ifndef CD_IDENTITY_H
#define CD_IDENTITY_H

#include "common/cd_common.h"

#include <stddef.h>

#define CD_IDENTITY_TARGETS_MAX 16 /* CD_LABEL_TARGETS_MAX */
#define CD_IDENTITY_SHARED_MAX 24
#define CD_IDENTITY_OWN_MAX 4

/* Bytes of a line, not NUL-terminated. */
struct cd_span {
    const char *p;
    size_t n;
};

struct cd_identity_field {
    struct cd_span key, value;
};

struct cd_identity_target {
    struct cd_span sha1;     /* 40 hex digits, or "" when unknown */
    struct cd_span map_size; /* decimal */
    struct cd_identity_field own[CD_IDENTITY_OWN_MAX]; /* settings given for it alone */
    size_t n_own;
    struct cd_span args;     /* the arguments after the program, joined by blanks */
};

struct cd_identity {
    struct cd_identity_field shared[CD_IDENTITY_SHARED_MAX]; /* in the line's order; the one-
                                                                target form's map_size is its
                                                                target's, not here */
    size_t n_shared;
    size_t map_at;           /* the one-target form: its map_size's place among them */
    struct cd_identity_target targets[CD_IDENTITY_TARGETS_MAX];
    unsigned n_targets;
    bool several;            /* the form of several targets (even if it names one) */
    struct cd_span shard;    /* "K/N", or empty */
};

/* Parses line (a state's settings; NULL reads as "") into *id, its spans pointing into line and
 * sha1 (the state header's, for the one-target form); false when it is no identity this or an
 * earlier version wrote. */
bool cd_identity_parse(const char *line, const char *sha1, struct cd_identity *id);

/* Writes id as a line into buf (cap bytes, NUL-terminated when cap > 0) in the form it says
 * (several, or one target: whose SHA-1 the line leaves to the header); returns the length the
 * whole line takes, as snprintf does. cd_identity_parse reads it back field for field. */
size_t cd_identity_write(const struct cd_identity *id, char *buf, size_t cap);

/* Whether two targets are one: the same binary, map size, own settings and arguments. */
bool cd_identity_same_target(const struct cd_identity_target *a,
                             const struct cd_identity_target *b);

/* The bits of the targets of b that are a's target at the same place (cd_identity_same_target). */
uint32_t cd_identity_same_targets(const struct cd_identity *a, const struct cd_identity *b);

/* Whether a and b share the same settings, field for field (their shards aside). */
bool cd_identity_same_shared(const struct cd_identity *a, const struct cd_identity *b);

/* Whether a and b are one identity but for their shards: shards of one run merge. */
bool cd_identity_same_unsharded(const struct cd_identity *a, const struct cd_identity *b);

/* Writes the first difference from was to now as "KEY was 'A', now 'B'" into buf (the first
 * target's arguments as "args", its map size as "map_size", then the shared settings in now's
 * order); "settings differ" when none is found. */
void cd_identity_first_difference(const struct cd_identity *was, const struct cd_identity *now,
                                  char *buf, size_t cap);

/* A span of a C string. */
static inline struct cd_span cd_span_of(const char *s)
{
    return (struct cd_span){s ? s : "", s ? __builtin_strlen(s) : 0};
}

#endif
