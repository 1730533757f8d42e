/* thread-guess.h — where a message will most likely be threaded, as it is stored. */
#pragma once

#include <glib.h>

#include "mail.h"
#include "store.h"

G_BEGIN_DECLS

typedef struct _ThreadGuesser ThreadGuesser;

typedef void (*ThreadGuessLookup) (const char *message_id, ThreadGuesser *guesser, gpointer data);

ThreadGuesser *thread_guesser_new (guint max_per_generation);
void thread_guesser_set_lookup (ThreadGuesser *guesser, ThreadGuessLookup func, gpointer data);
void thread_guesser_free (ThreadGuesser *guesser);
void thread_guesser_know (ThreadGuesser *guesser, const char *message_id, gint64 id,
                          gint64 thread, const char *date, guint64 content);
void thread_guesser_guess (ThreadGuesser *guesser, gint64 id, const MailRecord *record,
                           StoreThreadGuess *guess);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ThreadGuesser, thread_guesser_free)

G_END_DECLS
