/* walk.c — expanding directories into the files under them.
 *
 * A named file is always attempted (and its failure is an error).  Files
 * found under a directory are attempted too, but one that turns out not to
 * be an mbox is skipped with a note, since archive folders hold READMEs
 * and indexes.  A zip archive is expanded into its members the same way.
 * Hidden files and directories are ignored; the order is sorted so that
 * ingests are reproducible.  A public-inbox repository is one source: a
 * bare git repository (a v1 inbox, or one epoch) is an item, an inbox
 * folder (git/N.git) is its epochs in order; neither is walked as files.
 */
#include "walk.h"
#include "input.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

static void
walk_item_free (gpointer data)
{
  WalkItem *item = data;

  g_free (item->path);
  g_free (item->error);
  g_free (item);
}

static WalkItem *
add_one (GPtrArray *items, const char *path, gboolean from_directory)
{
  WalkItem *item = g_new0 (WalkItem, 1);

  item->path = g_strdup (path);
  item->from_directory = from_directory;
  item->size = -1;
  g_ptr_array_add (items, item);
  return item;
}

/* A zip archive stands for its members ("ARCHIVE.zip/MEMBER"), as a
 * directory does for its files: members that are not mbox files (a
 * README) are skipped with a note.  An archive with no member, or one
 * that cannot be read, is an error. */
static void
add_item (GPtrArray *items, const char *path, gboolean from_directory, gint64 size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) members = NULL;

  if (!input_is_zip (path))
    {
      add_one (items, path, from_directory)->size = size;
      return;
    }
  if ((members = input_zip_members (path, &error)) == NULL || members->len == 0)
    {
      add_one (items, path, from_directory)->error =
        g_strdup (error ? error->message : "an empty zip archive");
      return;
    }
  for (guint i = 0; i < members->len; i++)
    add_one (items, g_ptr_array_index (members, i), TRUE);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* A directory's identity, to follow symbolic links without going round
 * a loop. */
static gpointer
dir_key (const struct stat *st)
{
  return g_strdup_printf ("%ju:%ju", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
}

static void walk_directory_seen (GPtrArray *items, const char *dir, GHashTable *seen);

/* A public-inbox repository or inbox at @dir: its items, TRUE. */
static gboolean
add_inbox (GPtrArray *items, const char *dir, gboolean from_directory)
{
  g_autoptr (GPtrArray) epochs = NULL;

  if (input_is_git_repository (dir))
    {
      add_one (items, dir, from_directory);
      return TRUE;
    }
  if ((epochs = input_inbox_epochs (dir)) == NULL)
    return FALSE;
  for (guint i = 0; i < epochs->len; i++)
    add_one (items, g_ptr_array_index (epochs, i), from_directory);
  return TRUE;
}

static void
walk_directory (GPtrArray *items, const char *dir)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  struct stat st;

  if (stat (dir, &st) == 0)
    g_hash_table_add (seen, dir_key (&st));
  walk_directory_seen (items, dir, seen);
}

static void
walk_directory_seen (GPtrArray *items, const char *dir, GHashTable *seen)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &error);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (d == NULL)
    {
      add_one (items, dir, FALSE)->error = g_strdup (error->message);
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      const char *path = g_ptr_array_index (names, i);
      struct stat st;

      /* Symbolic links are followed (an archive folder of links into a
       * collection is common), each directory once; a link that leads
       * nowhere is said, not skipped in silence. */
      if (stat (path, &st) < 0)
        {
          struct stat link;

          if (lstat (path, &link) == 0 && S_ISLNK (link.st_mode))
            add_one (items, path, TRUE)->error = g_strdup_printf ("a symbolic link to nothing (%s)",
                                                                 g_strerror (errno));
          continue;
        }
      if (S_ISDIR (st.st_mode))
        {
          if (g_hash_table_add (seen, dir_key (&st)) && !add_inbox (items, path, TRUE))
            walk_directory_seen (items, path, seen);
        }
      else if (S_ISREG (st.st_mode))
        add_item (items, path, TRUE, st.st_size);
    }
}

/**
 * walk_paths:
 * @paths: %NULL-terminated paths from the command line
 *
 * Paths that cannot be walked (an unreadable folder, a broken zip) are
 * items with an error, in their place, for the caller to report; files
 * are opened, and their errors found, by the caller.
 *
 * Returns: (transfer full) (element-type WalkItem): the files, in order
 */
GPtrArray *
walk_paths (char **paths)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (walk_item_free);

  for (char **p = paths; *p; p++)
    {
      struct stat st;

      if (stat (*p, &st) == 0 && S_ISDIR (st.st_mode))
        {
          if (!add_inbox (items, *p, FALSE))
            walk_directory (items, *p);
        }
      else
        add_item (items, *p, FALSE, -1);   /* errors are reported when opened */
    }
  return items;
}

/**
 * walk_is_maildir_message:
 * @path: a file, or a member of an archive ("x.tar.gz/dir/cur/NAME")
 *
 * Whether @path names a Maildir message: a file of a folder named cur or
 * new whose name is a Maildir name (a time in seconds, a dot, the rest:
 * "1035478339.M123P456.host:2,S").  Such a file is one message whatever
 * it begins with (many begin with an envelope line: it is not split
 * at another).  Its flags stay in its path (":2,S": seen), in files.path.
 */
gboolean
walk_is_maildir_message (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *folder = g_path_get_basename (dir);
  gsize digits = strspn (name, "0123456789");

  return (strcmp (folder, "cur") == 0 || strcmp (folder, "new") == 0) && digits > 0 &&
         name[digits] == '.';
}

/**
 * walk_pipermail_list:
 * @path: a file, or a member of an archive
 *
 * Pipermail keeps a list's archive as monthly files ("2001-November.txt",
 * gzipped or not) in a folder named after the list, and its messages
 * carry no List-Id: the folder names their list.
 *
 * Returns: (transfer full) (nullable): the folder's name when @path is a
 *   pipermail month, else %NULL
 */
char *
walk_pipermail_list (const char *path)
{
  static const char *const months[] = { "January", "February", "March", "April", "May", "June", "July",
                                        "August", "September", "October", "November", "December" };
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *folder = g_path_get_basename (dir);
  const char *rest;

  if (strspn (name, "0123456789") != 4 || name[4] != '-')
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (months); i++)
    if (g_str_has_prefix (name + 5, months[i]))
      {
        rest = name + 5 + strlen (months[i]);
        if ((strcmp (rest, ".txt") == 0 || strcmp (rest, ".txt.gz") == 0 || strcmp (rest, "") == 0) &&
            strcmp (folder, ".") != 0 && strcmp (folder, "/") != 0 && *folder != '\0')
          return g_utf8_make_valid (folder, -1);
      }
  return NULL;
}

