/* Files written whole or not at all (temp file beside, fsync, rename, fsync of the directory) and
 * the path helpers they need. Used by emit, the manifest and the state file alike. */
#ifndef CD_FILE_H
#define CD_FILE_H

#include "cd_common.h"

#include <sys/stat.h>
#include <sys/types.h>

/* Splits path into owned copies of itself without trailing slashes, its parent ("." when it has
 * none) and its last component; false when out of memory (free what is non-NULL). */
bool cd_file_split(const char *path, char **whole, char **parent, char **base);

/* Returns "a/b" (owned), NULL when out of memory. */
char *cd_file_join(const char *a, const char *b);

/* Removes the tree at dirfd's entry name (a file, or a directory and all it holds), following
 * no link; 0, or -1 with errno. */
int cd_file_rm_tree_at(int dirfd, const char *name);

/* The same for path. */
int cd_file_rm_tree(const char *path);

/* Creates directory path and its missing parents (mode 0755 before the umask); FAILED with err
 * set when one cannot be made or path is not a directory. */
enum cd_status cd_file_mkdir_p(const char *path, struct cd_error *err);

/* Opens directory path by walking it from "/" (or the working directory) one component at a
 * time, each opened with O_NOFOLLOW | O_DIRECTORY relative to the one before and made when
 * missing (create), a symbolic link on the way followed only when this user or root owns it:
 * the descriptor (close-on-exec), or -1 with a one-line message. What it leads to is resolved
 * once, here: a run holds it and works through it from then on. */
int cd_file_open_dir_walk(const char *path, bool create, struct cd_error *err);

/* Syncs directory dir, so that renames in it last; 0, or -1 with errno. */
int cd_file_sync_dir(const char *dir);

/* Puts the complete directory tmp in place as dir (base its name in parent, where tmp is too):
 * renamed when dir is missing or empty, else swapped with it in one step (RENAME_EXCHANGE) or,
 * where the file system lacks that, by two renames through "PARENT/.BASE.old-XXXXXX" (between
 * them dir is missing but both are whole). *aside gets the path (owned) that holds the old
 * directory now, or NULL when there was none; the caller removes or keeps it. FAILED with err
 * set and everything as it was. */
enum cd_status cd_file_swap_dir(const char *tmp, const char *dir, const char *parent,
                                const char *base, char **aside, struct cd_error *err);

/* Writes all len bytes to fd and syncs it; what names the file in the error. */
enum cd_status cd_file_write_all(int fd, const uint8_t *data, size_t len, const char *what,
                                 struct cd_error *err);

/* The process's umask, read back by setting it: call it only while no other thread creates
 * files. What mkstemp and mkdtemp make private gets the modes a new file would. */
mode_t cd_file_umask(void);

/* Creates "PARENT/.BASE.tmp-XXXXXX", mode 0644 less the umask, close-on-exec: *tmp is owned, *fd
 * open. */
enum cd_status cd_file_temp_open(const char *parent, const char *base, char **tmp, int *fd,
                                 struct cd_error *err);

/* Syncs and closes *fd, renames *tmp over whole and syncs parent: the file appears whole or not at
 * all. On success *fd is -1 and *tmp freed and NULL; on failure the caller removes *tmp. */
enum cd_status cd_file_temp_commit(int *fd, char **tmp, const char *whole, const char *parent,
                                   struct cd_error *err);

/* What cd_file_dir_at does besides opening: create the directory when missing; require it to
 * be this user's (a directory the tool made for itself, where another's means a swap). */
enum { CD_FILE_CREATE = 1, CD_FILE_OWN = 2 };

/* Opens directory name in dirfd (AT_FDCWD: the working directory) without following a link at
 * name, as flags ask (CD_FILE_*; 0755 less the umask when created): returns the descriptor
 * (close-on-exec), or -1 with a one-line message naming shown (a link, not a directory, another
 * user's under CD_FILE_OWN, or the system's cause). */
int cd_file_dir_at(int dirfd, const char *name, const char *shown, int flags,
                   struct cd_error *err);

/* The first component of path (each prefix, as lstat sees it) that is a symbolic link owned by
 * neither this user nor root, copied into buf (cap bytes), or NULL when there is none. Such a
 * link in a path the tool writes under is another user's choice of where the output goes (the
 * rule the kernel's protected_symlinks applies in sticky directories), so it is refused. */
const char *cd_file_foreign_link(const char *path, char *buf, size_t cap);

/* For a process of root's: the first directory on the way to path (links resolved; from "/" down
 * to what exists of it) that lets another user choose what path comes to mean: one of another
 * user's; one others can write in, unless sticky with the next component root's own (there only
 * an entry's owner renames or removes it); or one others can write in where the rest is still
 * to be made (they can make it first). Copied into buf (cap bytes); NULL when there is none. */
const char *cd_file_unsafe_for_root(const char *path, char *buf, size_t cap);

/* Whether dirfd's entry name is a regular file of this user's, not a link; *sb (may be NULL)
 * gets its stat. For what the tool sweeps or takes back as its own. */
bool cd_file_is_own_at(int dirfd, const char *name, struct stat *sb);

/* Writes len bytes as name in the open directory dfd atomically: a temp file ".NAME.tmp-XXXXXX"
 * created there with O_EXCL and no link followed, fsync, renameat, fsync of dfd. shown names the
 * directory in errors. */
enum cd_status cd_file_write_at(int dfd, const char *shown, const char *name, const void *data,
                                size_t len, struct cd_error *err);

/* Writes len bytes to path atomically: a temp file beside it, fsync, rename, fsync of the parent
 * directory. */
enum cd_status cd_file_write(const char *path, const void *data, size_t len, struct cd_error *err);

/* The same in two steps, so that a file can be written in full (where a full disk shows) before
 * anything it goes with is replaced: stage writes and syncs the temp file (on failure nothing is
 * left and *out is NULL), commit renames it into place, abort removes it. Both free f; NULL is a
 * no-op for abort. */
struct cd_file;
enum cd_status cd_file_stage(struct cd_file **out, const char *path, const void *data, size_t len,
                             struct cd_error *err);
enum cd_status cd_file_commit(struct cd_file *f, struct cd_error *err);
void cd_file_abort(struct cd_file *f);

#endif
