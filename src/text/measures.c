/* measures.c — keyness and collocation measures, as AntConc 4 and
 * quanteda's textstat_keyness / textstat_collocations report them. */
#include <math.h>
#include "measures.h"

static double
xlogx_over (double o, double e)
{
  return o > 0 && e > 0 ? o * log (o / e) : 0.0;
}

/**
 * text_g2_table:
 *
 * Log-likelihood G² = 2 Σ O ln (O / E) over a 2×2 table of observed
 * counts, with E = row total × column total / N (Dunning 1993).
 */
double
text_g2_table (double o11, double o12, double o21, double o22)
{
  double n = o11 + o12 + o21 + o22;
  double r1 = o11 + o12, r2 = o21 + o22, c1 = o11 + o21, c2 = o12 + o22;

  if (n <= 0)
    return 0.0;
  return 2.0 * (xlogx_over (o11, r1 * c1 / n) + xlogx_over (o12, r1 * c2 / n)
                + xlogx_over (o21, r2 * c1 / n) + xlogx_over (o22, r2 * c2 / n));
}

/**
 * text_g2:
 * @a: the term's count in the target
 * @b: its count in the reference
 * @c: words in the target
 * @d: words in the reference
 *
 * Keyness as signed log-likelihood: the four-term G² of the table
 * (a, b; c − a, d − b), negative when the term is relatively rarer in the
 * target than in the reference (quanteda's sign convention).
 */
double
text_g2 (double a, double b, double c, double d)
{
  double g2 = text_g2_table (a, b, c - a, d - b);

  return c > 0 && d > 0 && a / c < b / d ? -g2 : g2;
}

/**
 * text_log_ratio:
 *
 * Hardie's (2014) Log Ratio: log₂ ((a / c) / (b / d)), an effect size;
 * a zero count is taken as 0.5 so the value stays finite.
 */
double
text_log_ratio (double a, double b, double c, double d)
{
  if (c <= 0 || d <= 0)
    return 0.0;
  return log2 (((a > 0 ? a : 0.5) / c) / ((b > 0 ? b : 0.5) / d));
}

/* The p-value of a χ²-distributed statistic with one degree of freedom. */
double
text_chi2_p (double statistic)
{
  return statistic <= 0 ? 1.0 : erfc (sqrt (fabs (statistic) / 2.0));
}

/**
 * text_pmi:
 * @o11: times the pair occurs
 * @r1: times the first word occurs (in a pair's first place)
 * @c1: times the second word occurs (in a pair's second place)
 * @n: pairs in all
 *
 * Pointwise mutual information, log₂ (o11 N / (r1 c1)) (AntConc's MI).
 */
double
text_pmi (double o11, double r1, double c1, double n)
{
  if (o11 <= 0 || r1 <= 0 || c1 <= 0 || n <= 0)
    return 0.0;
  return log2 (o11 * n / (r1 * c1));
}

/* t-score: (O − E) / √O with E = r1 c1 / N. */
double
text_t_score (double o11, double r1, double c1, double n)
{
  if (o11 <= 0 || n <= 0)
    return 0.0;
  return (o11 - r1 * c1 / n) / sqrt (o11);
}
