#!/usr/bin/env python3
"""Every SQL statement binds its values: a grep-based guard.

deja builds no SQL from data.  This test reads src/*.c and fails, naming the
file and line, on
  - a call to sqlite3_prepare_v2/v3 or sqlite3_exec (or store.c's exec,
    _store_query_int, query_text and _store_prepare_sql helpers,
    store-thread-batches.c's plan_exec) whose SQL is neither a string literal
    nor one of the reviewed constant tables below;
  - a printf-style format that looks like SQL, unless reviewed below.
A new entry in an allowlist needs a reason next to it.
"""
import glob
import os
import re

import tap

SRC = os.path.join(os.environ["SOURCE_ROOT"], "src")

# SQL arguments that are not literals, each checked by hand:
ALLOWED_SQL_ARGS = {
    "sql",              # helpers' own parameter, and store_search's static literal
    "lane_names[lane->number].attach", "lane_names[lane->number].detach",  # store-fts-side.c: static literals
    "stmt_sql[i]",      # store.c: a static table of literals
    "net_sql[query]",   # store-network.c: a static table of literals
    "group_posts_sql",  # store-groups.c: one static literal
    "links_sql[query]",  # store-links.c: a static table of literals
    "report_sql[kind]", # store-query.c: a static table of literals
    "search_sql[mode][filter->match == NULL]",  # store-query.c: a static table of literals
    "show_sql[what]",   # store-show.c: a static table of literals
    "fill_sql[table][0]", "fill_sql[table][1]",  # store-filter.c: a static table of literals
    "mode_sql[by_subject != FALSE]",  # store-thread.c: a static table of literals
    "stats_sql[store->stats_copy][query]", "stats_copy_sql",  # store-query.c: static literals
    "authors_sql[what]",  # store-authors.c: a static table of literals
    "drop_sql",         # store-query.c _store_copy_end (and copy_sql, _begin): static literals of their callers
    "group_posts_sql[copy]",  # store-groups.c: a static table of literals
    "sqls[i]",          # store-authors.c: static literals chosen by the decision
    "dedup_sql[what]",  # store-dedup.c: a static table of literals
    "sql[copies != FALSE]",  # store.c (store_text_to_analyse): a static table of literals
    "merge_groups",     # store-thread.c: a static literal
    "messages_sql[batch >= 0]",  # store-thread.c: a static table of literals
    "refs_sql[store->catalog][batch >= 0]",  # store-thread.c: a static table of literals
    "shard_messages_sql[batch >= 0]", "shard_refs_sql[batch >= 0]",  # store-thread.c: static tables of literals
    "changed_sql[batch >= 0]",  # store-thread.c: a static table of literals
    "shard_senders_sql[0]", "shard_senders_sql[1]",  # store-authors.c: a static table of literals
    "clear_sql[batches_only != FALSE]",  # store-thread.c: a static table of literals
    "plan_messages_sql[k != NULL]",      # store-thread-batches.c: a static table of literals
    "sql->str",         # store-query.c store_export: SELECT list from the export_fields table only;
                        # store-indexes.c: CREATE INDEX statements of the embedded schema;
                        # store-merge.c: EXISTS over the table names of its static ShardRows;
                        # the paths of a group's shards, under the static slot_schema names
    "tx_sql[*own][0]", "tx_sql[own][1]", "tx_sql[own][2]",  # store-authors.c: a static table of literals
    "deja_schema[v]",   # store.c migrate: the embedded schema files
    "deja_schema_new",  # store.c migrate: their result, one literal the build wrote (schema/final.c)
    "pragmas",          # store.c migrate: two integer constants
    "cache_size_sql (store)",  # store.c: one of two static literals
    "copy_sql",         # store-merge.c: a static literal
    "stored_checks[i].sql", "stored_messages_sql", "own_authors_sql[i]", "authors_differ_sql",  # store-merge.c: static literals
    "record_sql[in_shard != FALSE]", "pages_sql[k]",  # store-fts-copy.c: static tables of literals
    "pg_sql[table]",    # store-pg.c: a static table of literals
    "bounds_sql[how]",  # store-pg.c: a static table of literals
    "search_sql[s->count != FALSE]", "stats_sql[what]",  # pg/pg.c: static tables of literals
    # store-thread-batches.c: static literals of the threading plan on disk
    "plan_tables_sql", "plan_propagate_sql", "plan_jump_sql", "plan_components_sql",
    "index_batches_sql",
    "deferrable[i].drop",  # store-indexes.c: a static table of literals
    "page_size_sql (archive_bytes",  # store.c: one of two literals (page_size_sql (archive_bytes, files))
    # store.c: identity_sql, a static table of literals (main and the attached shard)
    "sql[ID_APP]", "sql[ID_VERSION]", "sql[ID_TABLES]", "sql[ID_OBJECTS]",
    "identity_sql[SCHEMA_SHARD][ID_DEFERRED]",
    # store.c _store_prepare_sql: a literal whose "shard." names the schema a shard of a
    # merge group is attached under (store-merge.c slot_schema, static literals)
    "in_slot",
    "checks[i].sql", "totals[k]",  # store-fts-copy.c: static tables of literals
    "count_sql[force != FALSE]",   # store.c: a static table of literals
    "follow_sql[statement]", "follow_sql[k]",   # store-fts-side.c: a static table of literals
    "side_table_sql",              # store-fts-side.c: one static literal (deja's declaration)
    "no_merge_sql", "merge_sql",   # store-fts-side.c: static literals (FTS5 merging off, on)
    # store-catalog.c: static literals, and deja's views of its embedded schema made TEMP
    "number_sql", "temp", "decisions_held_sql",
    "scans[s].sql", "scans[s].write[k]",   # store-catalog.c: a static table of literals
    # store-shards.c _store_shards_update_begin: a table's and its columns' names (plain, quoted)
    "join",
    "update_sql", "catalog_save_sql",  # store-thread.c: static literals
    "kept_placeholders_sql",  # store-thread.c: a static literal
}

# printf formats that contain SQL words, each checked by hand:
ALLOWED_FORMATS = {
    'PRAGMA application_id = %d; PRAGMA user_version = %d',  # integer constants
    '%s%s AS \\"%s\\"',                                       # export field list, from a fixed table
    # store-merge.c: the column names of deja's own messages table (PRAGMA table_info), quoted
    'INSERT INTO main.messages (%s) SELECT %s FROM shard.messages m',
    # store-merge.c shard_tables_with_rows: the table names of its own static ShardRows tables
    '%sEXISTS (SELECT 1 FROM shard.%s)',
    # store-merge.c group_replaces_nothing: its static slot_schema names
    '%sSELECT path, sha256 FROM %s.files',
    # store-shards.c: a table's and its columns' names, plain (letters, digits, underscores:
    # plain_name()) and of the connection's own table (a catalog's, of deja's schema), quoted
    '(SELECT min(rowid) FROM main.%s), (SELECT max(rowid) FROM main.%s)',
    ', (SELECT min(%s) FROM main.%s WHERE %s IS NOT NULL),',
    'SELECT coalesce((SELECT max(rowid) FROM main.%s) - (SELECT min(rowid) FROM main.%s)',
    'SELECT count(*) FROM main.%s',
    'PRAGMA cache_size = -%u',   # store-shards.c: an integer computed here
    ' FROM main.%s WHERE rowid = ?1',
    'INSERT OR REPLACE INTO main.%s (rowid',
    'DELETE FROM main.%s WHERE rowid = ?1',
    # store-shards.c _store_shards_update_begin: names as above
    'UPDATE temp.%s SET %s = %s WHERE %s = -1',
    '\\n%s FROM main.%s WHERE rowid = ?1',
    # store-shards.c: the FTS5 functions of its static lists, on a table of a plain name
    'SELECT deja_counts(%s) FROM main.%s WHERE %s MATCH ?1 LIMIT 1',
    'SELECT %s(%s',
    ') FROM main.%s WHERE %s MATCH ?1 AND rowid = ?2',
}

CALL = re.compile(r"\b(sqlite3_prepare_v[23]|sqlite3_exec|exec|plan_exec|query_int|query_text|"
                  r"PQexecParams|run_rows|_store_prepare_sql|_store_query_int)\s*\(\s*"
                  r"([^,()]+(?:\([^()]*\))?)\s*,\s*")
# each shard of a catalog runs the statement (store-shards.c): SQL is the second argument
SCAN_CALL = re.compile(r"\b(_store_shards_scan(?:_bound)?)\s*\(\s*[^,()]+\s*,\s*")
FORMAT = re.compile(r"\b(g_strdup_printf|g_string_append_printf|g_string_printf|printf|snprintf|"
                    r"g_snprintf)\s*\(\s*(?:[\w>.-]+\s*,\s*)?\"((?:[^\"\\]|\\.)*)\"")
# (a word right after a conversion counts: "%sSELECT")
SQL_WORD = re.compile(r"(?:\b|(?<=%s))(SELECT|INSERT|UPDATE|DELETE|PRAGMA|WHERE|VALUES)\b")


def sources():
    for path in sorted(glob.glob(os.path.join(SRC, "**", "*.c"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            yield path, f.read()


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def sql_argument(text, start):
    """The SQL argument's text: a literal run (adjacent literals) or an expression."""
    rest = text[start:]
    if rest.startswith('"'):
        return '"'
    m = re.match(r"([^,]+?)\s*(,|\)\s*[;!=)&|])", rest)
    return m.group(1).strip() if m else rest.split(",")[0].strip()


@tap.test
def sql_is_literal_or_reviewed():
    bad = []
    seen = 0
    for path, text in sources():
        for m in list(CALL.finditer(text)) + list(SCAN_CALL.finditer(text)):
            seen += 1
            arg = sql_argument(text, m.end())
            if arg == '"' or arg in ALLOWED_SQL_ARGS or arg.startswith('"'):
                continue
            # a helper's definition ("exec (Store *store, const char *sql, …)") is not a call
            if re.match(r"\s*(const\s+)?\w+\s*\*", arg) or arg.startswith("Store *"):
                continue
            bad.append("%s:%d: SQL from %r" % (os.path.basename(path), line_of(text, m.start()), arg))
    assert seen > 20, "found only %d SQL calls: is the pattern still right?" % seen
    assert not bad, "SQL that is not a literal or a reviewed table:\n" + "\n".join(bad)


@tap.test
def no_sql_built_with_printf():
    bad = []
    for path, text in sources():
        for m in FORMAT.finditer(text):
            fmt = m.group(2)
            if SQL_WORD.search(fmt) and fmt not in ALLOWED_FORMATS:
                bad.append("%s:%d: %r" % (os.path.basename(path), line_of(text, m.start()), fmt))
    assert not bad, "printf formats that build SQL:\n" + "\n".join(bad)


@tap.test
def the_guard_catches_a_string_built_statement():
    sample = ('static void f (Store *store, const char *name) {\n'
              '  char *q = g_strdup_printf ("SELECT * FROM messages WHERE subject = \'%s\'", name);\n'
              '  sqlite3_exec (store->db, q, NULL, NULL, NULL);\n}\n')
    calls = [sql_argument(sample, m.end()) for m in CALL.finditer(sample)]
    assert calls == ["q"], calls
    formats = [m.group(2) for m in FORMAT.finditer(sample) if SQL_WORD.search(m.group(2))]
    assert len(formats) == 1


if __name__ == "__main__":
    tap.run()
