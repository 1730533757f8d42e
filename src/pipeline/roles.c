/* roles.c — deja authors --roles: the structural signature of a poster.
 *
 * Welser, Gleave, Fisher and Smith (2007, "Visualizing the signatures of
 * social roles in online discussion groups") tell "answer people" from
 * "discussion people" by whom they reply to: answer people reply, in
 * threads others started, to many people who themselves have few ties
 * (askers who come and go); discussion people reply to people as
 * connected as they are.  And some posters start threads that nobody
 * answers.  The figures and the rule are in docs/people.md ("Roles").
 *
 * Ties are the undirected reply network of authors (a reply in either
 * direction, to oneself left out), over the whole archive.
 */
#include "roles.h"
#include "id-hash.h"

struct _Roles {
  GHashTable *facts;     /* author id -> RoleFacts */
};

typedef struct {
  RoleFacts facts;
  GHashTable *partners;  /* author ids (as GINT64 keys in the table's own memory) */
} Building;

static void
building_free (gpointer p)
{
  Building *b = p;

  g_hash_table_unref (b->partners);
  g_free (b);
}

static Building *
building_of (GHashTable *table, gint64 author)
{
  Building *b = g_hash_table_lookup (table, &author);

  if (b == NULL)
    {
      b = g_new0 (Building, 1);
      b->partners = deja_id_table_new (g_free, NULL);
      g_hash_table_insert (table, g_memdup2 (&author, sizeof author), b);
    }
  return b;
}

static gboolean
add_reply (const StoreNetRow *r, gpointer data)
{
  GHashTable *table = data;
  Building *from = building_of (table, r->author);
  Building *to;

  if (r->thread != r->author)
    from->facts.replies_to_others++;
  if (r->author == r->other)
    return TRUE;
  to = building_of (table, r->other);
  g_hash_table_add (from->partners, g_memdup2 (&r->other, sizeof r->other));
  g_hash_table_add (to->partners, g_memdup2 (&r->author, sizeof r->author));
  return TRUE;
}

static gint
compare_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

static gboolean
add_start (const StoreNetRow *r, gpointer data)
{
  building_of (data, r->author)->facts.threads_initiated++;
  return TRUE;
}

/**
 * roles_load:
 *
 * Reads the reply network and computes every author's ties.
 *
 * Returns: (transfer full) (nullable): the facts, or %NULL with @error
 */
Roles *
roles_load (Store *store, GError **error)
{
  g_autoptr (GHashTable) building = deja_id_table_new (g_free, building_free);
  StoreFilter all = { 0 };
  g_autoptr (GArray) degrees = g_array_new (FALSE, FALSE, sizeof (guint));
  Roles *roles;
  GHashTableIter it;
  gpointer key, value;
  guint few = 0;

  if (!store_network_rows (store, STORE_NET_REPLY_STARTERS, &all, add_reply, building, error) ||
      !store_network_rows (store, STORE_NET_THREAD_STARTS, &all, add_start, building, error))
    return NULL;
  /* "few ties": no more than the median author with a tie has */
  g_hash_table_iter_init (&it, building);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      guint d = g_hash_table_size (((Building *) value)->partners);

      if (d > 0)
        g_array_append_val (degrees, d);
    }
  if (degrees->len > 0)
    {
      g_array_sort (degrees, compare_uint);
      few = g_array_index (degrees, guint, (degrees->len - 1) / 2);
    }
  roles = g_new0 (Roles, 1);
  roles->facts = deja_id_table_new (g_free, g_free);
  g_hash_table_iter_init (&it, building);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      Building *b = value;
      RoleFacts *f = g_memdup2 (&b->facts, sizeof b->facts);
      GHashTableIter p;
      gpointer partner;
      guint low = 0;

      f->ties = g_hash_table_size (b->partners);
      g_hash_table_iter_init (&p, b->partners);
      while (g_hash_table_iter_next (&p, &partner, NULL))
        {
          Building *other = g_hash_table_lookup (building, partner);

          low += other != NULL && g_hash_table_size (other->partners) <= few;
        }
      f->low_degree_tie_share = f->ties ? (double) low / (double) f->ties : -1;
      g_hash_table_insert (roles->facts, g_memdup2 (key, sizeof (gint64)), f);
    }
  return roles;
}

void
roles_free (Roles *roles)
{
  if (roles == NULL)
    return;
  g_hash_table_unref (roles->facts);
  g_free (roles);
}

/**
 * roles_facts:
 *
 * Returns: (transfer none): the facts of @author (zero for one who
 *   replied to nobody and got no reply)
 */
const RoleFacts *
roles_facts (const Roles *roles, gint64 author)
{
  static const RoleFacts none = { .low_degree_tie_share = -1 };
  const RoleFacts *f = g_hash_table_lookup (roles->facts, &author);

  return f ? f : &none;
}

/**
 * roles_label:
 *
 * The rule of docs/people.md ("Roles"), first match wins.
 *
 * Returns: (transfer none): the role
 */
const char *
roles_label (gint64 messages, gint64 replies_received, const RoleFacts *f)
{
  double reply_share, start_share, answered;

  if (messages < ROLES_MIN_MESSAGES)
    return "occasional";
  reply_share = (double) f->replies_to_others / (double) messages;
  start_share = (double) f->threads_initiated / (double) messages;
  answered = (double) replies_received / (double) messages;
  if (reply_share >= 0.6 && f->low_degree_tie_share >= 0.5 && start_share <= 0.2)
    return "answer person";
  if (start_share >= 0.5 && answered < 0.2)
    return "unanswered starter";
  if (start_share >= 0.5)
    return "thread starter";
  if (reply_share >= 0.5 && f->low_degree_tie_share >= 0 && f->low_degree_tie_share < 0.5)
    return "discussion person";
  return "mixed";
}
