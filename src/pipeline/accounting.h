/* accounting.h — deja groups: social accounting per group and period. */
#pragma once

#include <glib.h>

#include "store.h"

G_BEGIN_DECLS

typedef enum {
  ACCOUNTING_BY_YEAR,
  ACCOUNTING_BY_MONTH,
  ACCOUNTING_BY_QUARTER,
} AccountingPeriod;

typedef struct {
  AccountingPeriod by;
  StoreFilter filter;
} AccountingOptions;

gboolean accounting_run (Store *store, const AccountingOptions *options, StoreRowFunc func,
                         gpointer user_data, gint64 *rows, GError **error);

gint64 accounting_period_of (const char *date, AccountingPeriod by);
char *accounting_period_name (gint64 period, AccountingPeriod by);

G_END_DECLS
