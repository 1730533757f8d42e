/* measures.h — corpus statistics for keyness and collocations
 * (docs/text-analysis.md gives each formula with a worked example). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

double text_g2 (double a, double b, double c, double d);
double text_log_ratio (double a, double b, double c, double d);
double text_chi2_p (double statistic);
double text_g2_table (double o11, double o12, double o21, double o22);
double text_pmi (double o11, double r1, double c1, double n);
double text_t_score (double o11, double r1, double c1, double n);

G_END_DECLS
