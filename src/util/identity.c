/* identity.c — which sender addresses are one person.
 *
 * Certain (identity_resolve, applied by every ingest):
 *   - the same address in any case, or munged ("ann at example dot com"):
 *     the sender parser already gives one lower-case address;
 *   - Gmail's equivalent forms: dots and "+tag" in the local part are
 *     ignored by Gmail, and googlemail.com is gmail.com;
 *   - Google Groups' masked "ann...@example.com" and the one full address
 *     of the archive it fits, when their names do not disagree;
 *   - UUCP bang paths of the same user at the same last host;
 *   - an archive's mask ("j@ne@doe @end|ng |rom ex@mp|e@org") and the
 *     plain address that masks to it exactly (identity_archive_mask());
 *   - people's decisions: merge, split (merged with nothing
 *     automatically), never (two addresses never in one author).
 *
 * Everything else is a suggestion (identity_suggest) with its evidence,
 * found by blocking: each author gets keys (its name, its name at each
 * domain, its local parts, its signature blocks); authors that share a
 * key are compared, and names are compared with their neighbours in two
 * sort orders (sorted-neighbourhood), so the work is O(n log n).
 */
#include "identity.h"
#include "fnv.h"
#include "id-hash.h"

#include <string.h>

/* Blocks larger than this are common keys ("John", "info") that say
 * little; they are skipped rather than compared pair by pair. */
#define BLOCK_MAX 24
/* Sorted-neighbourhood window for similar names. */
#define WINDOW 4
/* A signature block seen with more authors is a footer, not a person. */
#define SIGNATURE_MAX_AUTHORS 3

/* ---- keys ---- */

static const char *const generic_names[] = {
  "admin", "administrator", "anonymous", "daemon mailer", "guest", "info", "list", "me",
  "nobody", "postmaster", "root", "unknown", "user", "webmaster",
};

static const char *const generic_locals[] = {
  "admin", "contact", "help", "info", "list", "lists", "mail", "mailer-daemon", "news",
  "nobody", "no-reply", "noreply", "office", "owner", "postmaster", "root", "sales",
  "support", "test", "user", "webmaster",
};

static gboolean
in_list (const char *s, const char *const *list, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (s, list[i]) == 0)
      return TRUE;
  return FALSE;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/**
 * identity_name_key:
 * @name: a display name (UTF-8), or %NULL
 *
 * The name as blocking compares it: accents and case folded away,
 * punctuation dropped, words sorted ("Lefkowitz, Glyph" and "glyph
 * lefkowitz" give "glyph lefkowitz").  %NULL for no name, a name that is
 * an address, or a generic one ("root", "Webmaster").
 *
 * Returns: (transfer full) (nullable): the key
 */
char *
identity_name_key (const char *name)
{
  g_autofree char *decomposed = NULL, *folded = NULL;
  g_autoptr (GPtrArray) words = NULL;
  g_autoptr (GString) word = NULL, key = NULL;

  if (name == NULL || strchr (name, '@') != NULL || !g_utf8_validate (name, -1, NULL))
    return NULL;
  decomposed = g_utf8_normalize (name, -1, G_NORMALIZE_NFKD);
  folded = g_utf8_casefold (decomposed, -1);
  words = g_ptr_array_new_with_free_func (g_free);
  word = g_string_new (NULL);
  for (const char *p = folded;; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c != 0 && g_unichar_type (c) == G_UNICODE_NON_SPACING_MARK)
        continue;
      if (c != 0 && g_unichar_isalnum (c))
        {
          g_string_append_unichar (word, c);
          continue;
        }
      if (word->len > 0)
        g_ptr_array_add (words, g_strdup (word->str));
      g_string_truncate (word, 0);
      if (c == 0)
        break;
    }
  if (words->len == 0)
    return NULL;
  g_ptr_array_sort (words, compare_strings);
  key = g_string_new (NULL);
  for (guint i = 0; i < words->len; i++)
    g_string_append_printf (key, "%s%s", i ? " " : "", (char *) words->pdata[i]);
  if (in_list (key->str, generic_names, G_N_ELEMENTS (generic_names)))
    return NULL;
  return g_string_free (g_steal_pointer (&key), FALSE);
}

/* Google Groups shows "ann...@example.com" to readers who are not members. */
gboolean
identity_masked (const char *address, gsize *prefix_len)
{
  const char *at = strchr (address, '@');

  if (at == NULL || at - address < 3 || memcmp (at - 3, "...", 3) != 0)
    return FALSE;
  if (prefix_len)
    *prefix_len = (gsize) (at - 3 - address);
  return TRUE;
}

/**
 * identity_gmail_canonical:
 *
 * Gmail delivers "a.nn+lists@googlemail.com" to "ann@gmail.com": one
 * mailbox, so one person.  %NULL for other domains (where a dot or a plus
 * may be part of the name).
 */
char *
identity_gmail_canonical (const char *address)
{
  const char *at = strrchr (address, '@');
  g_autoptr (GString) local = NULL;

  if (at == NULL || (strcmp (at + 1, "gmail.com") != 0 && strcmp (at + 1, "googlemail.com") != 0) ||
      identity_masked (address, NULL))
    return NULL;
  local = g_string_new (NULL);
  for (const char *p = address; p < at && *p != '+'; p++)
    if (*p != '.')
      g_string_append_c (local, *p);
  if (local->len == 0)
    return NULL;
  g_string_append (local, "@gmail.com");
  return g_string_free (g_steal_pointer (&local), FALSE);
}

static gboolean
blank_line (const char *p, const char *end)
{
  for (; p < end; p++)
    if (!g_ascii_isspace (*p))
      return FALSE;
  return TRUE;
}

/* A line after which a top-posted reply quotes the original without '>':
 * "-----Original Message-----", "On Monday, Ann wrote:", "From: Ann". */
static gboolean
starts_quoted_original (const char *line, gsize n)
{
  while (n > 0 && g_ascii_isspace (line[n - 1]))
    n--;
  return (n >= 16 && g_strstr_len (line, (gssize) n, "Original Message") != NULL) ||
         (n >= 6 && g_ascii_strncasecmp (line + n - 6, "wrote:", 6) == 0) ||
         (n >= 6 && g_ascii_strncasecmp (line, "From: ", 6) == 0) ||
         (n >= 16 && strspn (line, "_") == n);    /* Outlook's rule, or a list footer */
}

/**
 * identity_signature:
 * @body: a message's text
 *
 * A hash of its signature block: up to four non-empty lines after the
 * first "-- " line (RFC 3676's delimiter; "--" too, as lists strip the
 * space), case and spacing folded.  The first, and none when the text
 * before it turns to a quoted original: a top-posted reply quotes the
 * original, signature and all, below the author's own.  0 when there is none, or when it holds
 * fewer than eight letters or digits (a bare name says less than a block).
 */
guint64
identity_signature (const char *body, gsize len)
{
  const char *end = body + len, *start = NULL, *p;
  guint64 h = FNV_START;
  guint lines = 0, alnum = 0;
  gboolean space = FALSE;

  for (p = body; p < end;)
    {
      const char *eol = memchr (p, '\n', (gsize) (end - p));
      const char *stop = eol ? eol : end;
      gsize n = (gsize) (stop - p);

      if (n > 0 && stop[-1] == '\r')
        n--;
      if ((n == 3 && memcmp (p, "-- ", 3) == 0) || (n == 2 && memcmp (p, "--", 2) == 0))
        {
          start = eol ? eol + 1 : end;
          break;
        }
      if (starts_quoted_original (p, n))
        return 0;    /* what follows is someone else's, signature and all */
      p = eol ? eol + 1 : end;
    }
  if (start == NULL)
    return 0;
  for (p = start; p < end && lines < 4;)
    {
      const char *eol = memchr (p, '\n', (gsize) (end - p));
      const char *stop = eol ? eol : end;

      if (*p == '>' || (stop - p >= 3 && memcmp (p, "___", 3) == 0))
        break;   /* quoted text or a list footer after the signature */
      if (!blank_line (p, stop))
        {
          lines++;
          for (const char *q = p; q < stop; q++)
            {
              char c = g_ascii_tolower (*q);
              if (g_ascii_isspace (c))
                {
                  space = TRUE;
                  continue;
                }
              if (space && alnum > 0)
                h = fnv_field (h, " ", 1);
              space = FALSE;
              h = fnv_field (h, &c, 1);
              alnum += g_ascii_isalnum (c) || (guchar) c >= 0x80;
            }
          space = TRUE;
        }
      p = eol ? eol + 1 : end;
    }
  return alnum >= 8 ? (h ? h : 1) : 0;
}

/* Levenshtein distance over bytes, or max + 1 when it is larger. */
guint
identity_edit_distance (const char *a, const char *b, guint max)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = NULL;
  guint result;

  if ((la > lb ? la - lb : lb - la) > max)
    return max + 1;
  row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diagonal = row[0], best;

      row[0] = (guint) i;
      best = row[0];
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint cost = a[i - 1] == b[j - 1] ? 0 : 1;

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diagonal + cost);
          diagonal = up;
          best = MIN (best, row[j]);
        }
      if (best > max)
        return max + 1;
    }
  result = row[lb];
  return result > max ? max + 1 : result;
}

/* ---- resolution ---- */

typedef struct {
  guint *parent;
  gboolean *alone;                    /* split: no automatic merge */
  const IdentityDecision *decisions;
  guint n_decisions;
  GHashTable *index;                  /* address -> i + 1 */
} Sets;

static guint
find (Sets *s, guint i)
{
  while (s->parent[i] != i)
    i = s->parent[i] = s->parent[s->parent[i]];
  return i;
}

static gint64
index_of (Sets *s, const char *address)
{
  gpointer p = address ? g_hash_table_lookup (s->index, address) : NULL;
  return p ? (gint64) GPOINTER_TO_UINT (p) - 1 : -1;
}

/* Whether a never-decision keeps the sets of @ra and @rb apart. */
static gboolean
forbidden (Sets *s, guint ra, guint rb)
{
  for (guint k = 0; k < s->n_decisions; k++)
    {
      const IdentityDecision *d = &s->decisions[k];
      gint64 x, y;
      guint fx, fy;

      if (d->verdict != IDENTITY_NEVER || (x = index_of (s, d->address)) < 0 ||
          (y = index_of (s, d->other)) < 0)
        continue;
      fx = find (s, (guint) x), fy = find (s, (guint) y);
      if ((fx == ra && fy == rb) || (fx == rb && fy == ra))
        return TRUE;
    }
  return FALSE;
}

static void
join (Sets *s, guint a, guint b, gboolean automatic)
{
  guint ra = find (s, a), rb = find (s, b);

  if (ra == rb || (automatic && (s->alone[a] || s->alone[b])) || forbidden (s, ra, rb))
    return;
  if (rb < ra)
    {
      guint t = ra;
      ra = rb, rb = t;
    }
  s->parent[rb] = ra;
}

static const char *
domain_of (const char *address)
{
  const char *at = strrchr (address, '@');
  return at ? at + 1 : "";
}

/* Full (unmasked) addresses by domain, each list sorted: the candidates
 * a masked address may stand for. */
static GHashTable *
full_addresses_by_domain (const IdentityAddress *a, guint n)
{
  GHashTable *by = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) g_array_unref);

  for (guint i = 0; i < n; i++)
    {
      GArray *list;

      if (identity_masked (a[i].address, NULL))
        continue;
      if ((list = g_hash_table_lookup (by, domain_of (a[i].address))) == NULL)
        g_hash_table_insert (by, (gpointer) domain_of (a[i].address),
                             list = g_array_new (FALSE, FALSE, sizeof (guint)));
      g_array_append_val (list, i);
    }
  return by;
}

/* Indexes of the full addresses @masked fits ("ann...@d": ann*@d). */
static GArray *
masked_candidates (const IdentityAddress *a, GHashTable *by_domain, const char *masked)
{
  gsize prefix;
  GArray *list, *out = g_array_new (FALSE, FALSE, sizeof (guint));

  if (!identity_masked (masked, &prefix) ||
      (list = g_hash_table_lookup (by_domain, domain_of (masked))) == NULL)
    return out;
  for (guint k = 0; k < list->len; k++)
    {
      guint j = g_array_index (list, guint, k);
      if (strncmp (a[j].address, masked, prefix) == 0)
        g_array_append_val (out, j);
    }
  return out;
}

static gboolean
names_agree (const char *x, const char *y)
{
  g_autofree char *kx = identity_name_key (x), *ky = identity_name_key (y);
  return kx == NULL || ky == NULL || strcmp (kx, ky) == 0;
}

/**
 * identity_hidden:
 *
 * Returns: whether @address is a masked form that hides the address
 *   (Google Groups' "ann...@example.com", an archive's "@end|ng |rom"):
 *   such a key is an author's primary address only when it has no other
 */
gboolean
identity_hidden (const char *address)
{
  return identity_masked (address, NULL) || strchr (address, '|') != NULL;
}

/**
 * identity_bang_tail:
 * @address: a sender key
 *
 * Returns: (transfer full) (nullable): for a UUCP bang path, its last
 *   host and user ("gatech!ann" of "decvax!ucbvax!gatech!ann"); %NULL for
 *   anything else
 */
char *
identity_bang_tail (const char *address)
{
  const char *last = strrchr (address, '!'), *host;

  if (last == NULL || strchr (address, '@') != NULL || strchr (address, ' ') != NULL ||
      last == address || last[1] == '\0')
    return NULL;
  for (host = last; host > address && host[-1] != '!'; host--)
    ;
  return g_strdup (host);
}

/**
 * identity_archive_mask:
 * @address: a plain address, "jane.doe@example.org"
 *
 * The form some archives (the R project's among them) show instead of an
 * address: "user sending from host", then 'a', 's' and '.' made '@', and
 * 'i', 'l' and 'f' made '|': "j@ne@doe @end|ng |rom ex@mp|e@org".  The
 * parser keeps such a form as the sender's key (flag from-masked); the
 * plain address whose mask it is exactly is the same person.
 *
 * Returns: (transfer full) (nullable): the mask, lower case; %NULL when
 *   @address is no plain address
 */
char *
identity_archive_mask (const char *address)
{
  const char *at = strchr (address, '@');
  g_autofree char *text = NULL;

  if (at == NULL || at == address || strchr (at + 1, '@') != NULL || strchr (address, ' ') != NULL)
    return NULL;
  text = g_strdup_printf ("%.*s sending from %s", (int) (at - address), address, at + 1);
  for (char *p = text; *p; p++)
    {
      *p = g_ascii_tolower (*p);
      if (*p == 'a' || *p == 's' || *p == '.')
        *p = '@';
      else if (*p == 'i' || *p == 'l' || *p == 'f')
        *p = '|';
    }
  return g_steal_pointer (&text);
}

/* Joins the addresses that @key_of gives one key (NULL: none). */
static void
join_by_key (Sets *s, const IdentityAddress *a, guint n, char *(*key_of) (const char *address))
{
  g_autoptr (GHashTable) firsts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < n; i++)
    {
      char *key = key_of (a[i].address);
      gpointer first;

      if (key == NULL)
        continue;
      if ((first = g_hash_table_lookup (firsts, key)) != NULL)
        {
          join (s, GPOINTER_TO_UINT (first) - 1, i, TRUE);
          g_free (key);
        }
      else
        g_hash_table_insert (firsts, key, GUINT_TO_POINTER (i + 1));
    }
}

static void
join_certain (Sets *s, const IdentityAddress *a, guint n)
{
  g_autoptr (GHashTable) by_domain = full_addresses_by_domain (a, n);

  join_by_key (s, a, n, identity_gmail_canonical);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GArray) fits = masked_candidates (a, by_domain, a[i].address);

      if (fits->len == 1 && names_agree (a[i].name, a[g_array_index (fits, guint, 0)].name))
        join (s, i, g_array_index (fits, guint, 0), TRUE);
    }
  /* UUCP: the same user at the same last host, whatever relays the path
   * went through ("decvax!ucbvax!gatech!ann" and "gatech!ann"). */
  join_by_key (s, a, n, identity_bang_tail);
  /* An archive's mask and the plain address that masks to it exactly. */
  {
    g_autoptr (GHashTable) masks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

    for (guint i = 0; i < n; i++)
      {
        char *mask = identity_archive_mask (a[i].address);

        if (mask != NULL && !g_hash_table_contains (masks, mask))
          g_hash_table_insert (masks, mask, GUINT_TO_POINTER (i + 1));
        else
          g_free (mask);
      }
    for (guint i = 0; i < n; i++)
      {
        gpointer plain = strchr (a[i].address, '|') ? g_hash_table_lookup (masks, a[i].address) : NULL;

        if (plain != NULL)
          join (s, i, GPOINTER_TO_UINT (plain) - 1, TRUE);
      }
  }
}

/**
 * identity_keyed_id:
 * @key: an author's key (an address, or a shared address's person)
 * @probe: how many ids derived from @key were in use
 *
 * Returns: an id from IDENTITY_KEYED_BASE up to below twice that
 */
gint64
identity_keyed_id (const char *key, guint64 probe)
{
  guint64 h = fnv_field (G_GUINT64_CONSTANT (14695981039346656037), key, strlen (key));

  return IDENTITY_KEYED_BASE + (gint64) ((h + probe) & (guint64) (IDENTITY_KEYED_BASE - 1));
}

typedef struct {
  guint root;
  gint64 first_id;
  guint first;             /* the address of the first message */
} Group;

/* A new author's id: after every earlier one; or, among keyed ids (a
 * shard's), the one its first address gives, past those in use. */
static gint64
new_author_id (gint64 *next, gboolean keyed, const char *key, GHashTable *taken, GHashTable *previous)
{
  gint64 id;

  if (!keyed)
    return ++*next;
  for (guint64 probe = 0;; probe++)
    {
      id = identity_keyed_id (key, probe);
      if (!g_hash_table_contains (taken, &id) && !g_hash_table_contains (previous, &id))
        return id;
    }
}

static int
by_first_id (gconstpointer x, gconstpointer y)
{
  const Group *a = x, *b = y;
  return a->first_id < b->first_id ? -1 : a->first_id > b->first_id;
}

/**
 * identity_resolve:
 * @addresses: every sender address
 * @decisions: people's decisions (addresses not in @addresses are ignored)
 * @keyed: new authors get keyed ids (identity_keyed_id()): those of a
 *   shard, whose earlier ids are keyed even where none of its keys has
 *   one (every address of a shard shared by several people, each of
 *   whom is a key of its own)
 * @n_authors: (out): how many authors
 *
 * Groups @addresses into authors and numbers them.  An author keeps the
 * id its addresses had before (the one most of its messages had);
 * new authors get ids above every earlier one, in archive order, or,
 * where the earlier ones are keyed (a shard's: identity_keyed_id()), the
 * one their first address gives, past every id in use or held before.
 *
 * Returns: (transfer full): the author id of each address
 */
gint64 *
identity_resolve (const IdentityAddress *a, guint n, const IdentityDecision *decisions,
                  guint n_decisions, gboolean keyed, gint64 *n_authors)
{
  Sets s = { g_new (guint, MAX (n, 1)), g_new0 (gboolean, MAX (n, 1)), decisions, n_decisions,
             g_hash_table_new (g_str_hash, g_str_equal) };
  gint64 *author = g_new0 (gint64, MAX (n, 1)), next = 0;
  g_autoptr (GArray) groups = g_array_new (FALSE, FALSE, sizeof (Group));
  g_autoptr (GHashTable) taken = deja_id_table_new (NULL, NULL);
  g_autoptr (GHashTable) previous = deja_id_table_new (NULL, NULL);
  g_autofree gint64 *group_of_root = g_new0 (gint64, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      s.parent[i] = i;
      g_hash_table_insert (s.index, (gpointer) a[i].address, GUINT_TO_POINTER (i + 1));
      next = MAX (next, a[i].previous);
      if (a[i].previous > 0)
        g_hash_table_add (previous, (gpointer) &a[i].previous);
    }
  /* A shard's authors (or a merge of shards'): new ones keyed too */
  keyed = keyed || next >= IDENTITY_KEYED_BASE;
  for (guint k = 0; k < n_decisions; k++)
    if (decisions[k].verdict == IDENTITY_SPLIT && index_of (&s, decisions[k].address) >= 0)
      s.alone[index_of (&s, decisions[k].address)] = TRUE;
  for (guint k = 0; k < n_decisions; k++)
    {
      gint64 x = index_of (&s, decisions[k].address), y = index_of (&s, decisions[k].other);
      if (decisions[k].verdict == IDENTITY_MERGE && x >= 0 && y >= 0)
        join (&s, (guint) x, (guint) y, FALSE);
    }
  join_certain (&s, a, n);

  /* Groups in archive order, by their first message. */
  for (guint i = 0; i < n; i++)
    {
      guint r = find (&s, i);
      if (group_of_root[r] == 0)
        {
          Group g = { r, a[i].first_id, i };
          g_array_append_val (groups, g);
          group_of_root[r] = groups->len;
        }
      else
        {
          Group *g = &g_array_index (groups, Group, group_of_root[r] - 1);
          if (a[i].first_id < g->first_id)
            g->first_id = a[i].first_id, g->first = i;
        }
    }
  g_array_sort (groups, by_first_id);
  {
    /* Each group's previous id: the one most of its messages had. */
    g_autofree gint64 *best = g_new0 (gint64, MAX (n, 1)), *weight = g_new0 (gint64, MAX (n, 1));
    g_autoptr (GHashTable) votes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

    for (guint i = 0; i < n; i++)
      {
        guint r = find (&s, i);
        char *key;
        gint64 *count;

        if (a[i].previous <= 0)
          continue;
        key = g_strdup_printf ("%u %" G_GINT64_FORMAT, r, a[i].previous);
        if ((count = g_hash_table_lookup (votes, key)) == NULL)
          g_hash_table_insert (votes, key, count = g_new0 (gint64, 1));
        else
          g_free (key);
        *count += a[i].messages + 1;
        if (*count > weight[r] || (*count == weight[r] && a[i].previous < best[r]))
          weight[r] = *count, best[r] = a[i].previous;
      }
    for (guint k = 0; k < groups->len; k++)
      {
        Group *g = &g_array_index (groups, Group, k);
        gint64 id = best[g->root];

        if (id <= 0 || g_hash_table_contains (taken, &best[g->root]))
          id = new_author_id (&next, keyed, a[g->first].address, taken, previous);
        group_of_root[g->root] = id;
        g_hash_table_add (taken, &group_of_root[g->root]);
      }
  }
  for (guint i = 0; i < n; i++)
    author[i] = group_of_root[find (&s, i)];
  *n_authors = groups->len;
  g_hash_table_unref (s.index);
  g_free (s.parent);
  g_free (s.alone);
  return author;
}

/* ---- suggestions ---- */

static const struct {
  IdentityEvidence bit;
  const char *text;
  int weight;
} evidence_kinds[] = {
  { IDENTITY_EVIDENCE_SAME_NAME, "same-name", 3 },
  { IDENTITY_EVIDENCE_SAME_FIRST_NAME, "same-one-word-name", 1 },
  { IDENTITY_EVIDENCE_SAME_DOMAIN, "same-name-and-domain", 2 },
  { IDENTITY_EVIDENCE_SIMILAR_NAME, "similar-name", 2 },
  { IDENTITY_EVIDENCE_SAME_LOCAL, "same-local-part", 1 },
  { IDENTITY_EVIDENCE_SUBADDRESS, "subaddress", 3 },
  { IDENTITY_EVIDENCE_MASKED, "masked-address-fits", 3 },
  { IDENTITY_EVIDENCE_SIGNATURE, "same-signature", 3 },
  { IDENTITY_EVIDENCE_SHARED_ADDRESS, "shared-address", 3 },
};

/* "same-name,same-signature" */
char *
identity_evidence_text (guint evidence)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (evidence_kinds); i++)
    if (evidence & evidence_kinds[i].bit)
      g_string_append_printf (s, "%s%s", s->len ? "," : "", evidence_kinds[i].text);
  return g_string_free (s, FALSE);
}

static int
score_of (guint evidence)
{
  int score = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (evidence_kinds); i++)
    if (evidence & evidence_kinds[i].bit)
      score += evidence_kinds[i].weight;
  return score;
}

typedef struct {
  char *key;
  gint64 author;
} Keyed;

typedef struct {
  GArray *keyed;           /* of Keyed */
  GHashTable *pairs;       /* "a b" -> guint evidence */
} Suggest;

static void
add_key (Suggest *s, gint64 author, char *key)
{
  Keyed k = { key, author };
  g_array_append_val (s->keyed, k);
}

static void
add_pair (Suggest *s, gint64 a, gint64 b, guint evidence)
{
  char *key;
  gpointer old;

  if (a == b)
    return;
  key = a < b ? g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, a, b)
              : g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, b, a);
  old = g_hash_table_lookup (s->pairs, key);
  g_hash_table_replace (s->pairs, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (old) | evidence));
}

static int
by_key (gconstpointer x, gconstpointer y)
{
  const Keyed *a = x, *b = y;
  int c = strcmp (a->key, b->key);
  return c ? c : (a->author > b->author) - (a->author < b->author);
}

/* Authors sharing a key (its first character says which kind) are
 * suggested; blocks of more than BLOCK_MAX authors are skipped. */
static void
compare_blocks (Suggest *s)
{
  Keyed *k = (Keyed *) s->keyed->data;
  guint n = s->keyed->len;

  g_array_sort (s->keyed, by_key);
  for (guint i = 0; i < n;)
    {
      guint j = i + 1, distinct = 1;
      guint evidence;

      for (; j < n && strcmp (k[j].key, k[i].key) == 0; j++)
        distinct += k[j].author != k[j - 1].author;
      switch (k[i].key[0])
        {
        case 'N': evidence = IDENTITY_EVIDENCE_SAME_NAME; break;
        case 'F': evidence = IDENTITY_EVIDENCE_SAME_FIRST_NAME; break;
        case 'D': evidence = IDENTITY_EVIDENCE_SAME_DOMAIN; break;
        case 'L': evidence = IDENTITY_EVIDENCE_SAME_LOCAL; break;
        case 'S': evidence = IDENTITY_EVIDENCE_SUBADDRESS; break;
        case 'H': evidence = IDENTITY_EVIDENCE_SHARED_ADDRESS; break;
        default: evidence = IDENTITY_EVIDENCE_SIGNATURE; break;
        }
      if (distinct >= 2 && distinct <= (k[i].key[0] == 'G' ? SIGNATURE_MAX_AUTHORS : BLOCK_MAX))
        for (guint x = i; x < j; x++)
          for (guint y = x + 1; y < j; y++)
            add_pair (s, k[x].author, k[y].author, evidence);
      i = j;
    }
}

static char *
reversed (const char *s)
{
  return g_utf8_strreverse (s, -1);
}

/* Names a typo or two apart, among neighbours in sorted order. */
static void
compare_neighbours (Suggest *s, GArray *names)
{
  Keyed *k = (Keyed *) names->data;

  g_array_sort (names, by_key);
  for (guint i = 0; i < names->len; i++)
    for (guint j = i + 1; j < names->len && j <= i + WINDOW; j++)
      {
        gsize len = MAX (strlen (k[i].key), strlen (k[j].key));
        guint max = len >= 12 ? 2 : 1;

        if (k[i].author != k[j].author && len >= 6 && strcmp (k[i].key, k[j].key) != 0 &&
            identity_edit_distance (k[i].key, k[j].key, max) <= max)
          add_pair (s, k[i].author, k[j].author, IDENTITY_EVIDENCE_SIMILAR_NAME);
      }
}

static void
keyed_clear (gpointer p)
{
  g_free (((Keyed *) p)->key);
}

static void
add_alias_keys (Suggest *s, GArray *names, GArray *reversed_names, const IdentityAlias *a)
{
  g_autofree char *name = identity_name_key (a->name);
  const char *at = strrchr (a->address, '@');
  g_autofree char *local = at ? g_strndup (a->address, (gsize) (at - a->address)) : NULL;
  g_autofree char *shared = NULL;
  char *plus;

  if (name)
    {
      gboolean one_word = strchr (name, ' ') == NULL;
      Keyed n = { g_strdup (name), a->author }, r = { reversed (name), a->author };

      add_key (s, a->author, g_strconcat (one_word ? "F" : "N", name, NULL));
      if (at && !one_word)
        add_key (s, a->author, g_strconcat ("D", name, "@", at + 1, NULL));
      g_array_append_val (names, n);
      g_array_append_val (reversed_names, r);
    }
  /* the people of a shared address ("noreply@github.com (jane doe)"), and
   * a placeholder address itself (its messages without a name) */
  if (at != NULL && strchr (at, ' ') != NULL)
    add_key (s, a->author, g_strconcat ("H", shared = g_strndup (a->address, (gsize) (strchr (at, ' ') - a->address)), NULL));
  else if (at != NULL && identity_placeholder (a->address))
    add_key (s, a->author, g_strconcat ("H", a->address, NULL));
  if (local == NULL || identity_masked (a->address, NULL))
    return;
  if ((plus = strchr (local, '+')) != NULL)
    *plus = '\0';
  if (strlen (local) >= 3 && !in_list (local, generic_locals, G_N_ELEMENTS (generic_locals)))
    {
      add_key (s, a->author, g_strconcat ("L", local, NULL));
      if (plus || strchr (a->address, '+') == NULL)
        add_key (s, a->author, g_strconcat ("S", local, "@", at + 1, NULL));
    }
}

static void
add_masked (Suggest *s, const IdentityAlias *aliases, guint n)
{
  g_autoptr (GHashTable) by_domain = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                            (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < n; i++)
    {
      GPtrArray *list;

      if (identity_masked (aliases[i].address, NULL))
        continue;
      if ((list = g_hash_table_lookup (by_domain, domain_of (aliases[i].address))) == NULL)
        g_hash_table_insert (by_domain, (gpointer) domain_of (aliases[i].address),
                             list = g_ptr_array_new ());
      g_ptr_array_add (list, (gpointer) &aliases[i]);
    }
  for (guint i = 0; i < n; i++)
    {
      gsize prefix;
      GPtrArray *list;
      guint fits = 0;

      if (!identity_masked (aliases[i].address, &prefix) ||
          (list = g_hash_table_lookup (by_domain, domain_of (aliases[i].address))) == NULL)
        continue;
      for (guint k = 0; k < list->len && fits <= BLOCK_MAX; k++)
        fits += strncmp (((IdentityAlias *) list->pdata[k])->address, aliases[i].address, prefix) == 0;
      for (guint k = 0; k < list->len && fits <= BLOCK_MAX; k++)
        {
          const IdentityAlias *full = list->pdata[k];
          if (strncmp (full->address, aliases[i].address, prefix) == 0)
            add_pair (s, aliases[i].author, full->author, IDENTITY_EVIDENCE_MASKED);
        }
    }
}

static int
by_score (gconstpointer x, gconstpointer y)
{
  const IdentitySuggestion *a = x, *b = y;

  if (a->score != b->score)
    return b->score - a->score;
  if (a->a != b->a)
    return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

/**
 * identity_suggest:
 * @aliases: every (author, address) pair
 * @signatures: authors' hashed signature blocks
 * @decisions: never-decisions are honoured (a pair never suggested again)
 * @min_score: leave out weaker suggestions (weights in evidence_kinds)
 *
 * Returns: (transfer full) (element-type IdentitySuggestion): the
 *   suggestions, strongest first
 */
GArray *
identity_suggest (const IdentityAlias *aliases, guint n, const IdentitySignature *signatures,
                  guint n_signatures, const IdentityDecision *decisions, guint n_decisions,
                  int min_score)
{
  Suggest s = { g_array_new (FALSE, FALSE, sizeof (Keyed)),
                g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };
  g_autoptr (GArray) names = g_array_new (FALSE, FALSE, sizeof (Keyed));
  g_autoptr (GArray) reversed_names = g_array_new (FALSE, FALSE, sizeof (Keyed));
  g_autoptr (GHashTable) author_of = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) never = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (IdentitySuggestion));
  GHashTableIter iter;
  gpointer key, value;

  g_array_set_clear_func (s.keyed, keyed_clear);
  g_array_set_clear_func (names, keyed_clear);
  g_array_set_clear_func (reversed_names, keyed_clear);
  for (guint i = 0; i < n; i++)
    {
      add_alias_keys (&s, names, reversed_names, &aliases[i]);
      g_hash_table_insert (author_of, (gpointer) aliases[i].address, (gpointer) &aliases[i].author);
    }
  for (guint i = 0; i < n_signatures; i++)
    add_key (&s, signatures[i].author, g_strdup_printf ("G%016" G_GINT64_MODIFIER "x", signatures[i].signature));
  compare_blocks (&s);
  compare_neighbours (&s, names);
  compare_neighbours (&s, reversed_names);
  add_masked (&s, aliases, n);
  for (guint k = 0; k < n_decisions; k++)
    {
      const gint64 *x = decisions[k].address ? g_hash_table_lookup (author_of, decisions[k].address) : NULL;
      const gint64 *y = decisions[k].other ? g_hash_table_lookup (author_of, decisions[k].other) : NULL;

      if (decisions[k].verdict != IDENTITY_MERGE && x && y)
        g_hash_table_add (never, g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
                                                  MIN (*x, *y), MAX (*x, *y)));
      else if (decisions[k].verdict == IDENTITY_SPLIT && x)
        g_hash_table_add (never, g_strdup_printf ("split %" G_GINT64_FORMAT, *x));
    }
  g_hash_table_iter_init (&iter, s.pairs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      IdentitySuggestion sg = { 0 };
      g_autofree char *split_a = NULL, *split_b = NULL;

      char *rest;

      sg.a = g_ascii_strtoll (key, &rest, 10);
      sg.b = g_ascii_strtoll (rest, NULL, 10);
      sg.evidence = GPOINTER_TO_UINT (value);
      sg.score = score_of (sg.evidence);
      split_a = g_strdup_printf ("split %" G_GINT64_FORMAT, sg.a);
      split_b = g_strdup_printf ("split %" G_GINT64_FORMAT, sg.b);
      if (sg.score >= min_score && !g_hash_table_contains (never, key) &&
          !g_hash_table_contains (never, split_a) && !g_hash_table_contains (never, split_b))
        g_array_append_val (out, sg);
    }
  g_array_sort (out, by_score);
  g_array_unref (s.keyed);
  g_hash_table_unref (s.pairs);
  return out;
}

/* ---- shared addresses ---- */

/* Local parts that name no person: notification senders and the
 * placeholders Usenet posters wrote to escape spam. */
static const char *const placeholder_locals[] = {
  "anon", "anonymous", "donotreply", "do-not-reply", "do_not_reply", "invalid", "mailer-daemon",
  "no-reply", "no.reply", "no_reply", "nobody", "none", "noone", "noreply", "nospam", "no-spam",
  "no.spam", "notifications", "nowhere", "null", "spam", "unknown", "user",
};

/**
 * identity_placeholder:
 * @address: a lower-case address
 *
 * Returns: whether @address names no person: a notification sender
 *   (noreply@, notifications@), a Usenet placeholder (nospam@nospam.com,
 *   anonymous@, user@), a domain that cannot exist (*.invalid, invalid),
 *   or Mailman's archiver's for a message without a sender
 *   (bogus@does.not.exist.com)
 */
gboolean
identity_placeholder (const char *address)
{
  const char *at = strrchr (address, '@');
  g_autofree char *local = NULL;
  const char *domain;

  if (at == NULL)
    return FALSE;
  local = g_strndup (address, at - address);
  domain = at + 1;
  return in_list (local, placeholder_locals, G_N_ELEMENTS (placeholder_locals)) ||
         g_str_has_suffix (domain, ".invalid") || strcmp (domain, "invalid") == 0 ||
         strstr (domain, "nospam") != NULL || strstr (domain, "no-spam") != NULL ||
         strstr (local, "nospam") != NULL || strcmp (domain, "does.not.exist.com") == 0;
}

/* Union-find over name indexes. */
static guint
root_of (guint *parent, guint i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* The words of a name's key, for identity_shared_split(). */
static char **
key_words (const char *name)
{
  g_autofree char *key = identity_name_key (name);

  return key ? g_strsplit (key, " ", -1) : NULL;
}

/* Whether two names (their key words) are alike: a word of two letters or
 * more in common, the same letters without spaces ("Matt P", "MattP"), or
 * a word of three letters or more that begins one of the other's ("Matt",
 * "Matthew"). */
static gboolean
names_alike (char **a, char **b)
{
  g_autofree char *ja = g_strjoinv ("", a), *jb = g_strjoinv ("", b);

  if (strcmp (ja, jb) == 0)
    return TRUE;
  for (char **x = a; *x; x++)
    for (char **y = b; *y; y++)
      {
        glong lx = g_utf8_strlen (*x, -1), ly = g_utf8_strlen (*y, -1);

        if ((lx >= 2 && strcmp (*x, *y) == 0) ||
            (lx >= 3 && g_str_has_prefix (*y, *x)) || (ly >= 3 && g_str_has_prefix (*x, *y)))
          return TRUE;
      }
  return FALSE;
}

/* Names compared pair by pair up to this many; past it, by shared words. */
#define SHARED_PAIRWISE_MAX 2000

/**
 * identity_shared_split:
 * @address: a lower-case address
 * @names: (array length=n): the display names used with it (NULL: none)
 * @counts: (array length=n): the messages of each
 * @n: how many
 * @n_people: (out): how many people @address is split into
 *
 * An address used under dissimilar names by several people is not one
 * person (docs/people.md, "Shared addresses").  Alike names
 * (names_alike()) are one person.  A placeholder (identity_placeholder())
 * is shared when its names make two people or more.  Any other address
 * only when they make three people or more, none of whom wrote more than
 * half of its messages, and three of whom have names of two words or more:
 * a person's own address carries their jokes and handles ("Wayne",
 * "hbd666") beside their name, a notification sender carries people.
 *
 * Returns: (transfer full) (nullable): the person (0 ..
 *   *n_people - 1) of each name (G_MAXUINT for a name that is no name:
 *   no person's we know), or %NULL when @address is one person
 */
guint *
identity_shared_split (const char *address, const char *const *names, const gint64 *counts, guint n,
                       guint *n_people)
{
  g_autofree guint *parent = g_new (guint, MAX (n, 1));
  g_autoptr (GHashTable) word_owner = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree guint *person = NULL;
  g_autofree gint *label = NULL;
  g_autofree gint64 *people_messages = NULL;
  g_autofree gboolean *people_full_name = NULL;
  char ***words = g_new0 (char **, MAX (n, 1));
  guint people = 0, named = 0, full_names = 0;
  gint64 total = 0, most = 0;
  guint *result = NULL;

  *n_people = 1;
  for (guint i = 0; i < n; i++)
    {
      parent[i] = i;
      words[i] = key_words (names[i]);
      named += words[i] != NULL;
    }
  if (named < 2)
    goto out;
  for (guint i = 0; i < n; i++)
    {
      if (words[i] == NULL)
        continue;
      for (char **w = words[i]; *w; w++)
        {
          gpointer owner;

          if (g_utf8_strlen (*w, -1) < 2)
            continue;
          if (g_hash_table_lookup_extended (word_owner, *w, NULL, &owner))
            parent[root_of (parent, i)] = root_of (parent, GPOINTER_TO_UINT (owner));
          else
            g_hash_table_insert (word_owner, g_strdup (*w), GUINT_TO_POINTER (i));
        }
      for (guint j = 0; n <= SHARED_PAIRWISE_MAX && j < i; j++)
        if (words[j] && root_of (parent, i) != root_of (parent, j) && names_alike (words[i], words[j]))
          parent[root_of (parent, i)] = root_of (parent, j);
    }
  /* number the people in the order of their first name */
  label = g_new (gint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    label[i] = -1;
  person = g_new0 (guint, MAX (n, 1));
  people_messages = g_new0 (gint64, MAX (n, 1));
  people_full_name = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      guint r;

      if (words[i] == NULL)
        {
          person[i] = G_MAXUINT;   /* a name that is no name: nobody's */
          continue;
        }
      r = root_of (parent, i);
      if (label[r] < 0)
        label[r] = (gint) people++;
      person[i] = (guint) label[r];
      people_messages[person[i]] += counts ? counts[i] : 1;
      people_full_name[person[i]] |= g_strv_length (words[i]) >= 2;
    }
  for (guint k = 0; k < people; k++)
    {
      total += people_messages[k];
      most = MAX (most, people_messages[k]);
      full_names += people_full_name[k];
    }
  if (people < 2)
    goto out;
  if (!identity_placeholder (address) && (people < 3 || most * 2 > total || full_names < 3))
    goto out;
  *n_people = people;
  result = g_steal_pointer (&person);
out:
  for (guint i = 0; i < n; i++)
    g_strfreev (words[i]);
  g_free (words);
  return result;
}
