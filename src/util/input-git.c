/* input-git.c — public-inbox repositories: one message per commit.
 *
 * public-inbox (lore.kernel.org and its mirrors) keeps a list in git.
 * Version 2 cuts it into epochs (INBOX/git/0.git, 1.git, …), bare
 * repositories whose every commit has a tree of one file: `m`, a
 * message, or `d`, a message removed (the removed message's blob again).
 * Version 1 is one bare repository whose tree holds every message, at
 * a fan-out path named after its Message-ID; a commit adds one, and a
 * removal deletes its path.  See public-inbox-v2-format(5).
 *
 * An epoch is read in commit order (oldest first) into one buffer, the
 * messages one after another, and their starts are kept: the splitter
 * takes them as given (mbox_splitter_set_bounds()), so a message is
 * never split, whatever its body holds.  A message removed, in its
 * epoch or in a later one of the same inbox, is left out.  New commits
 * only add to the end of the buffer, so a re-ingest finds the old part
 * unchanged and stores the messages added since (ingest.c's append).
 *
 * The reading itself, with libgit2, is a module (git.c, deja-git.so)
 * loaded when a repository is first read (util/module.c).
 */
#include "input-private.h"

#include <string.h>
#include <sys/stat.h>

static gboolean
is_dir (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return g_file_test (path, G_FILE_TEST_IS_DIR);
}

/**
 * input_is_git_repository:
 * @path: a directory
 *
 * Returns: whether @path looks like a bare git repository (HEAD, objects/
 *   and refs/): a public-inbox epoch or v1 inbox, which is read as one
 *   source, never walked as a folder of files
 */
gboolean
input_is_git_repository (const char *path)
{
  g_autofree char *head = g_build_filename (path, "HEAD", NULL);

  return g_file_test (head, G_FILE_TEST_IS_REGULAR) && is_dir (path, "objects") &&
         is_dir (path, "refs");
}

/* The epoch number of "N.git", or -1. */
static gint64
epoch_number (const char *name)
{
  gsize digits = strspn (name, "0123456789");

  if (digits == 0 || digits > 9 || strcmp (name + digits, ".git") != 0)
    return -1;
  return g_ascii_strtoll (name, NULL, 10);
}

static gint
compare_epochs (gconstpointer a, gconstpointer b)
{
  g_autofree char *na = g_path_get_basename (*(const char *const *) a);
  g_autofree char *nb = g_path_get_basename (*(const char *const *) b);
  gint64 ea = epoch_number (na), eb = epoch_number (nb);

  return ea < eb ? -1 : ea > eb;
}

/**
 * input_inbox_epochs:
 * @dir: a directory
 *
 * Returns: (transfer full) (nullable): when @dir is a public-inbox v2
 *   inbox (a folder git/ of N.git repositories), the epochs' paths in
 *   their order; else %NULL
 */
GPtrArray *
input_inbox_epochs (const char *dir)
{
  g_autofree char *git = g_build_filename (dir, "git", NULL);
  g_autoptr (GDir) d = g_dir_open (git, 0, NULL);
  g_autoptr (GPtrArray) epochs = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    return NULL;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (git, name, NULL);

      if (epoch_number (name) >= 0 && input_is_git_repository (path))
        g_ptr_array_add (epochs, g_steal_pointer (&path));
    }
  if (epochs->len == 0)
    return NULL;
  g_ptr_array_sort (epochs, compare_epochs);
  return g_steal_pointer (&epochs);
}

/* The bytes of @dir's objects folder: what the repository keeps, for
 * the expansion limit. */
static gint64
stored_size (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  gint64 total = 0;

  if (d == NULL)
    return 0;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;

      if (lstat (path, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        total += stored_size (path);
      else if (S_ISREG (st.st_mode))
        total += st.st_size;
    }
  return total;
}

gint64
_input_git_stored_size (const char *path)
{
  g_autofree char *objects = g_build_filename (path, "objects", NULL);

  return stored_size (objects);
}

/* Whether this deja reads git repositories (public-inbox). */
gboolean
input_git_available (void)
{
  return DEJA_HAVE_LIBGIT2;
}

#if DEJA_HAVE_LIBGIT2

#include "git-module.h"
#include "module.h"

static DejaModule module = DEJA_MODULE_INIT ("reading git repositories (libgit2)", DEJA_GIT_MODULE,
                                             "deja_git_module");

/* The epochs after @path's in its inbox (…/git/N.git), whose removals
 * may name its messages. */
static GPtrArray *
later_epochs (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *git = g_path_get_dirname (path);
  g_autofree char *folder = g_path_get_basename (git);
  g_autofree char *inbox = g_path_get_dirname (git);
  GPtrArray *later = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) all = NULL;
  gint64 mine = epoch_number (name);

  if (mine < 0 || strcmp (folder, "git") != 0 || (all = input_inbox_epochs (inbox)) == NULL)
    return later;
  for (guint i = 0; i < all->len; i++)
    {
      g_autofree char *other = g_path_get_basename (g_ptr_array_index (all, i));

      if (epoch_number (other) > mine)
        g_ptr_array_add (later, g_strdup (g_ptr_array_index (all, i)));
    }
  return later;
}

/* Why the module cannot be loaded, or NULL (transfer full). */
char *
input_git_module_problem (void)
{
  return deja_module_problem (&module);
}

gboolean
_input_git_expand (const char *path, InputWriteFunc write, gpointer sink, GArray *starts,
                   InputGitInfo *info, GError **error)
{
  const GitModule *t = deja_module_table (&module, error);
  g_autoptr (GPtrArray) later = NULL;

  memset (info, 0, sizeof *info);
  if (t == NULL)
    return FALSE;
  later = later_epochs (path);
  g_ptr_array_add (later, NULL);
  return t->expand (path, (const char *const *) later->pdata, write, sink, starts, info, error);
}

#else

char *
input_git_module_problem (void)
{
  return NULL;
}

gboolean
_input_git_expand (const char *path, InputWriteFunc write, gpointer sink, GArray *starts,
                   InputGitInfo *info, GError **error)
{
  memset (info, 0, sizeof *info);
  g_set_error (error, INPUT_ERROR, INPUT_ERROR_OPEN,
               "a git repository (public-inbox?): this deja was built without libgit2, which"
               " reads them (meson setup -Dlibgit2=enabled)");
  return FALSE;
}

#endif
