/* Labels: a run becomes a set of labels. A coverage label is an AFL map slot paired with its
 * hit-count class (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ as classes 1..8), written as afl-showmap
 * writes it, "EDGE:CLASS" with EDGE zero-padded to six digits. Outcome labels are "timeout",
 * "crash:SIGSEGV" (by signal name; "crash:SIG<n>" for a signal without a name here),
 * "crash:exit86" (a crash by exit status: sanitizer codes or AFL_CRASH_EXITCODE), and the
 * sanitizer report of a crashing run as "<tool>:<kind>" ("asan:heap-buffer-overflow",
 * "ubsan:signed-integer-overflow"; a kind not in our table is "<tool>:unknown"), and the bug it
 * is, "bug:<6 hex digits>", 24 bits of a hash of its crash state (kind, access and top program
 * frames: cd_exec_crash_state), whose text the table keeps as the label's note. Labels are 32-bit
 * ids; outcome ids come from fixed append-only tables or hashes, so a label has the same id in
 * every run. */
#ifndef CD_LABELS_H
#define CD_LABELS_H

#include "common/cd_common.h"
#include "exec/cd_target.h"
#include "exec/cd_exec.h"

/* Coverage label id: (edge << 3) | (class - 1); edges up to 2^28. Outcome ids set the top bit. */
#define CD_LABEL_OUTCOME 0x80000000u
#define CD_LABEL_EDGE_MAX (1u << 28)

/* A run of several targets keeps each target's labels apart: bits 27 to 30 of an id hold the
 * index of the target that showed it (coverage labels then have edges below
 * CD_LABEL_TARGET_EDGES, outcome ids keep kind and payload in their low 27 bits). Target 0's ids
 * are a single target's, so one target's tables, states and manifests are those of a run of one. */
#define CD_LABEL_TARGET_SHIFT 27
#define CD_LABEL_TARGETS_MAX 16u
#define CD_LABEL_TARGET_EDGES (1u << 24)
#define CD_LABEL_TARGET_MASK (0xfu << CD_LABEL_TARGET_SHIFT)

/* A run's targets, whose names label texts carry: with more than one, a label reads
 * "NAME/LABEL" ("xpath/000123:4", "html/bug:1a2b3c"). n of at most CD_LABEL_TARGETS_MAX. */
struct cd_label_names {
    const struct cd_target *v;
    unsigned n;
};

/* A growable array of label ids, sorted ascending and without duplicates after cd_labels_from_run.
 * Zero-initialise, then use; cd_labelset_release frees. */
struct cd_labelset {
    uint32_t *v;
    size_t n, cap;
};

/* Returns the AFL hit-count class (0..8) of a raw 8-bit count. */
unsigned cd_labels_class(uint8_t count);

/* Returns the coverage label id of edge with raw count (count must be non-zero). */
uint32_t cd_labels_edge(uint32_t edge, uint8_t count);

/* Replaces set's contents with the labels of run: every non-zero map slot but index 0 (each in
 * class 1 when edges_only, as afl-cmin -e counts), plus the outcome labels (the bug label when the
 * run has a crash state); a run that timed out
 * (or ran slow, unconfirmed) has the timeout label alone. FAILED only when out of memory. */
enum cd_status cd_labels_from_run(const struct cd_run *run, bool edges_only,
                                  struct cd_labelset *set, struct cd_error *err);

/* Whether name may name a target: a label's prefix and a directory's name, so 1 to 64 letters,
 * digits, '.', '_' or '-', not starting with '.' or '-'. */
bool cd_labels_name_valid(const char *name);

/* The index of the target label id belongs to (0 in a run of one target). */
unsigned cd_labels_target(uint32_t id);

/* Label id moved to target t (below CD_LABEL_TARGETS_MAX); id's own target bits are replaced. */
uint32_t cd_labels_in_target(uint32_t id, unsigned t);

/* Moves every label of set to target t (t > 0: its coverage labels of edges from
 * CD_LABEL_TARGET_EDGES on are dropped, as no id holds them), keeping the set sorted. */
void cd_labels_retarget(struct cd_labelset *set, unsigned t);

/* The bug label of a crash state's text: its first probe. */
uint32_t cd_labels_bug(const char *crash_state);

/* Probes a crash state may take as its bug label: the first whose note is free or its own, so
 * that a second state on one 24-bit id (by chance, or a decoy made to collide) is another bug. */
#define CD_LABELS_BUG_PROBES 8

/* Probe k (below CD_LABELS_BUG_PROBES) of a crash state's bug label; k = 0 is cd_labels_bug. */
uint32_t cd_labels_bug_probe(const char *crash_state, unsigned k);

/* True when id is one of crash_state's probes, in any target: a note may stand for that label
 * only then. */
bool cd_labels_bug_is_of(uint32_t id, const char *crash_state);

/* True when text has a crash state's form (cd_exec_crash_state): printable ASCII lines, the
 * first "<tool>:<kind>" with an optional access, at most CD_LABELS_CRASH_STATE_MAX bytes. */
#define CD_LABELS_CRASH_STATE_MAX 4096
bool cd_labels_crash_state_valid(const char *text);

/* True when id is a bug label ("bug:1a2b3c"). */
bool cd_labels_is_bug(uint32_t id);

/* True when id is an outcome label (crash, sanitizer, timeout), not coverage. */
bool cd_labels_is_outcome(uint32_t id);

/* The crash or hang a reproducer's labels (ids, n) show when no sanitizer reported it (no
 * sanitizer or bug label among them): its "crash:SIGSEGV", "crash:exit86" or "timeout" label,
 * the first of them; 0 when a sanitizer did, or they show no outcome. */
uint32_t cd_labels_unreported(const uint32_t *ids, size_t n);

/* The map slot (edge) of coverage label id. */
uint32_t cd_labels_slot(uint32_t id);

/* Writes the label's text ("000123:4", "crash:SIGSEGV") into buf; returns its length, as snprintf
 * does. */
int cd_labels_format(uint32_t id, char *buf, size_t cap);

/* True when some run could give label id: a coverage label of a map slot other than 0 below
 * CD_LABEL_EDGE_MAX, or an outcome label whose text parses back to it. */
bool cd_labels_valid(uint32_t id);

/* Parses a label's text back into its id; returns false when text is not a label. */
bool cd_labels_parse(const char *text, uint32_t *id);

/* cd_labels_format for a run of the targets names (NULL or one: no name), "NAME/LABEL". */
int cd_labels_format_in(uint32_t id, const struct cd_label_names *names, char *buf, size_t cap);

/* cd_labels_parse for a run of the targets names: with more than one, text must be "NAME/LABEL"
 * with NAME one of them; with one or none, a plain label. */
bool cd_labels_parse_in(const char *text, const struct cd_label_names *names, uint32_t *id);

/* Appends id (no sorting); returns false when out of memory. */
bool cd_labelset_push(struct cd_labelset *set, uint32_t id);

/* Returns whether the sorted set holds an outcome label (crash, sanitizer, timeout): outcome ids
 * sort last. */
bool cd_labelset_has_outcome(const struct cd_labelset *set);

/* Returns whether the sorted set holds id. */
bool cd_labelset_has(const struct cd_labelset *set, uint32_t id);

/* Frees the array and leaves the set empty and usable. */
void cd_labelset_release(struct cd_labelset *set);

#endif
