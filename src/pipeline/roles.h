/* roles.h — deja authors --roles: the structural signature of a poster. */
#pragma once

#include <glib.h>

#include "store.h"

G_BEGIN_DECLS

/* Fewer messages than this tell no role ("occasional"). */
#define ROLES_MIN_MESSAGES 5

typedef struct {
  gint64 threads_initiated;      /* threads started: roots that answer no message, in the
                                  * archive or not (a reply whose parent is missing starts none) */
  gint64 replies_to_others;      /* replies in threads another author started */
  gint64 ties;                   /* distinct authors replied to or replied by */
  double low_degree_tie_share;   /* of those, the share with few ties (no more than the median
                                  * author with a tie has); -1: no tie */
} RoleFacts;

typedef struct _Roles Roles;

Roles *roles_load (Store *store, GError **error);
void roles_free (Roles *roles);
const RoleFacts *roles_facts (const Roles *roles, gint64 author);
const char *roles_label (gint64 messages, gint64 replies_received, const RoleFacts *facts);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Roles, roles_free)

G_END_DECLS
