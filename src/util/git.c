/* git.c — public-inbox repositories read with libgit2 (input-git.c).
 *
 * A module of its own (deja-git.so, util/module.c), which input-git.c
 * loads when an input is a git repository: libgit2 and the libraries it
 * brings (mbed TLS, libssh2) are not loaded by every other command.
 *
 * libgit2 runs no hooks, filters or configured programs: reading a
 * stranger's repository reads objects only.  Its ownership check
 * (a repository owned by another user is refused, for git's sake of
 * configured programs) is off for the same reason.
 */
#include "git-module.h"

#include <git2.h>
#include <gmodule.h>
#include <string.h>

/* input.c's error domain (the same quark: the same name), not its
 * function: a module calls nothing of deja's */
#undef INPUT_ERROR
#define INPUT_ERROR (git_input_error_quark ())
static G_DEFINE_QUARK (input-error-quark, git_input_error)

static gboolean
git_fail (const char *what, GError **error)
{
  const git_error *e = git_error_last ();

  g_set_error (error, INPUT_ERROR, INPUT_ERROR_READ, "%s: %s", what,
               e && e->message ? e->message : "unknown git error");
  return FALSE;
}

static void
init_once (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      git_libgit2_init ();
      git_libgit2_opts (GIT_OPT_SET_OWNER_VALIDATION, 0);
      g_once_init_leave (&done, 1);
    }
}

static guint
oid_hash (gconstpointer p)
{
  guint h;

  memcpy (&h, p, sizeof h);
  return h;
}

static gboolean
oid_equal (gconstpointer a, gconstpointer b)
{
  return git_oid_equal (a, b);
}

static GHashTable *
oid_set_new (void)
{
  return g_hash_table_new_full (oid_hash, oid_equal, g_free, NULL);
}

static void
oid_set_add (GHashTable *set, const git_oid *oid)
{
  g_hash_table_add (set, g_memdup2 (oid, sizeof *oid));
}

typedef gboolean (*CommitFunc) (git_repository *repo, git_commit *commit, gpointer data,
                                GError **error);

/* Calls @each on every commit of @repo from the first to HEAD's; an
 * epoch with no commit yet has none. */
static gboolean
for_each_commit (git_repository *repo, CommitFunc each, gpointer data, GError **error)
{
  git_revwalk *walk = NULL;
  git_oid oid;
  gboolean ok = TRUE;
  int rc;

  if (git_revwalk_new (&walk, repo) < 0)
    return git_fail ("cannot walk the history", error);
  git_revwalk_sorting (walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  rc = git_revwalk_push_head (walk);
  if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND)
    {
      git_revwalk_free (walk);
      return TRUE;
    }
  if (rc < 0)
    {
      git_revwalk_free (walk);
      return git_fail ("cannot find the newest commit (HEAD)", error);
    }
  while (ok && (rc = git_revwalk_next (&oid, walk)) == 0)
    {
      git_commit *commit = NULL;

      if (git_commit_lookup (&commit, repo, &oid) < 0)
        ok = git_fail ("cannot read a commit", error);
      else
        ok = each (repo, commit, data, error);
      git_commit_free (commit);
    }
  if (ok && rc != GIT_ITEROVER)
    ok = git_fail ("cannot walk the history", error);
  git_revwalk_free (walk);
  return ok;
}

static gboolean
open_repository (git_repository **repo, const char *path, GError **error)
{
  init_once ();
  if (git_repository_open_ext (repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
                               NULL) < 0)
    return git_fail ("cannot open the git repository", error);
  return TRUE;
}

/* What one epoch holds, in commit order. */
typedef struct {
  GArray *messages;        /* of git_oid: blobs, oldest first */
  GHashTable *removed;     /* blobs removed (v2 `d`, a v1 path deleted) */
  int version;             /* 1 or 2; 0 before the first commit says */
  guint commits;
} Epoch;

/* A v1 commit: the messages it adds, the ones it removes. */
static gboolean
read_v1_commit (git_repository *repo, git_commit *commit, git_tree *tree, Epoch *e, GError **error)
{
  git_tree *old = NULL;
  git_diff *diff = NULL;
  git_commit *parent = NULL;
  gboolean ok = TRUE;

  if (git_commit_parentcount (commit) > 0 &&
      (git_commit_parent (&parent, commit, 0) < 0 || git_commit_tree (&old, parent) < 0))
    ok = git_fail ("cannot read a parent commit", error);
  if (ok && git_diff_tree_to_tree (&diff, repo, old, tree, NULL) < 0)
    ok = git_fail ("cannot compare a commit with its parent", error);
  for (size_t i = 0; ok && i < git_diff_num_deltas (diff); i++)
    {
      const git_diff_delta *d = git_diff_get_delta (diff, i);

      if (d->status == GIT_DELTA_ADDED || d->status == GIT_DELTA_MODIFIED)
        g_array_append_val (e->messages, d->new_file.id);
      if (d->status == GIT_DELTA_DELETED || d->status == GIT_DELTA_MODIFIED)
        oid_set_add (e->removed, &d->old_file.id);
    }
  git_diff_free (diff);
  git_tree_free (old);
  git_commit_free (parent);
  return ok;
}

static gboolean
read_commit (git_repository *repo, git_commit *commit, gpointer data, GError **error)
{
  Epoch *e = data;
  git_tree *tree = NULL;
  const git_tree_entry *m, *d;
  gboolean ok = TRUE;

  if (git_commit_tree (&tree, commit) < 0)
    return git_fail ("cannot read a commit's tree", error);
  e->commits++;
  m = git_tree_entry_byname (tree, "m");
  d = git_tree_entry_byname (tree, "d");
  if (e->version == 0)
    e->version = (m || d) && git_tree_entrycount (tree) == 1 ? 2 : 1;
  if (e->version == 2)
    {
      if (m != NULL && git_tree_entry_type (m) == GIT_OBJECT_BLOB)
        g_array_append_val (e->messages, *git_tree_entry_id (m));
      else if (d != NULL)
        oid_set_add (e->removed, git_tree_entry_id (d));
    }
  else
    ok = read_v1_commit (repo, commit, tree, e, error);
  git_tree_free (tree);
  return ok;
}

/* Only the removals of a later epoch. */
static gboolean
read_removals (git_repository *repo, git_commit *commit, gpointer data, GError **error)
{
  git_tree *tree = NULL;
  const git_tree_entry *d;

  if (git_commit_tree (&tree, commit) < 0)
    return git_fail ("cannot read a commit's tree", error);
  if ((d = git_tree_entry_byname (tree, "d")) != NULL && git_tree_entrycount (tree) == 1)
    oid_set_add (data, git_tree_entry_id (d));
  git_tree_free (tree);
  return TRUE;
}

/* The messages the epochs @later remove (v2: a later `d` may name a
 * message of an earlier epoch). */
static gboolean
removed_later (const char *const *later, GHashTable *removed, GError **error)
{
  for (guint i = 0; later[i]; i++)
    {
      git_repository *repo = NULL;
      gboolean ok = open_repository (&repo, later[i], error) &&
                    for_each_commit (repo, read_removals, removed, error);

      git_repository_free (repo);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Writes each message not removed, ending it with a newline if its blob
 * does not, and keeps where it starts. */
static gboolean
write_messages (git_repository *repo, const Epoch *e, InputWriteFunc write, gpointer sink,
                GArray *starts, guint *removed, GError **error)
{
  goffset at = 0;

  for (guint i = 0; i < e->messages->len; i++)
    {
      const git_oid *oid = &g_array_index (e->messages, git_oid, i);
      git_blob *blob = NULL;
      const char *p;
      git_object_size_t n;
      gboolean ok;

      if (g_hash_table_contains (e->removed, oid))
        {
          (*removed)++;
          continue;
        }
      if (git_blob_lookup (&blob, repo, oid) < 0)
        return git_fail ("cannot read a message", error);
      p = git_blob_rawcontent (blob);
      n = git_blob_rawsize (blob);
      if (n == 0)
        {
          git_blob_free (blob);
          continue;
        }
      g_array_append_val (starts, at);
      ok = write (p, (gsize) n, sink, error) && (p[n - 1] == '\n' || write ("\n", 1, sink, error));
      at += (goffset) n + (p[n - 1] != '\n');
      git_blob_free (blob);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* _input_git_expand(), given the epochs after @path's in its inbox */
static gboolean
expand (const char *path, const char *const *later, InputWriteFunc write, gpointer sink,
        GArray *starts, InputGitInfo *info, GError **error)
{
  git_repository *repo = NULL;
  Epoch e = { .messages = g_array_new (FALSE, FALSE, sizeof (git_oid)),
              .removed = oid_set_new () };
  gboolean ok;

  memset (info, 0, sizeof *info);
  ok = open_repository (&repo, path, error) && for_each_commit (repo, read_commit, &e, error) &&
       (e.version != 2 || removed_later (later, e.removed, error)) &&
       write_messages (repo, &e, write, sink, starts, &info->removed, error);
  info->version = e.version;
  info->commits = e.commits;
  g_array_unref (e.messages);
  g_hash_table_unref (e.removed);
  git_repository_free (repo);
  return ok;
}

G_MODULE_EXPORT const GitModule deja_git_module = {
  .version = PACKAGE_VERSION,
  .expand = expand,
};
