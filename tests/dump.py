#!/usr/bin/env python3
"""Prints a deja database as stable text, for comparison with .expect files.

Volatile fields (ids of files, paths, ingest times, hashes) are left out
or reduced to the file's base name, as notmuch's tests sanitize output.
"""
import os
import sqlite3
import sys


def dump(db_path):
    db = sqlite3.connect(db_path)
    db.text_factory = bytes
    out = []

    def text(v):
        if v is None:
            return "NULL"
        if isinstance(v, bytes):
            v = v.decode("utf-8")  # raises on invalid UTF-8: a test failure
        return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")

    for (path, size, messages, lines) in db.execute(
            "SELECT path, size, messages, lines FROM files ORDER BY path"):
        out.append("file\t%s\t%d bytes\t%d messages\t%d lines" % (
            os.path.basename(path.decode()), size, messages, lines))
    for row in db.execute(
            "SELECT m.id, f.path, m.line_no, m.byte_offset, m.byte_length, m.message_id,"
            " m.from_addr, m.from_name, m.subject, m.date, m.date_raw, m.charset, m.flags,"
            " (SELECT group_concat(name, ',') FROM (SELECT n.name FROM message_newsgroups mn"
            "   JOIN newsgroups n ON n.id = mn.newsgroup_id WHERE mn.message_id = m.id ORDER BY n.name)),"
            " (SELECT group_concat(kind || ':' || ref, ' ') FROM (SELECT kind, ref FROM refs r"
            "   WHERE r.message_id = m.id ORDER BY kind, position))"
            " FROM messages m JOIN files f ON f.id = m.file_id ORDER BY f.path, m.byte_offset"):
        mid, path = row[0], os.path.basename(row[1].decode())
        out.append("message\t%s:%s\t" % (path, row[2]) + "\t".join(text(v) for v in row[3:]))
        body, own, quoted, own_lines, attachments = db.execute(
            "SELECT body, own_text, quoted_lines, own_lines, attachment_count FROM messages"
            " WHERE id = ?", (mid,)).fetchone()
        out.append("body\t" + text(body))
        out.append("own\t%s quoted, %s own lines, %d attachments\t%s" % (
            quoted, own_lines, attachments, text(own)))
    for row in db.execute(
            "SELECT f.path, l.line_no, l.byte_offset, l.verdict, l.reason, l.shape, l.line_text"
            " FROM separator_log l JOIN files f ON f.id = l.file_id ORDER BY f.path, l.line_no"):
        out.append("log\t%s:%s\t" % (os.path.basename(row[0].decode()), row[1]) +
                   "\t".join(text(v) for v in row[2:]))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dump(sys.argv[1]))
