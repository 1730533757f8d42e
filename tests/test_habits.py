"""The habits of a good command-line tool: a manual page installed with
the program and in step with it, bash and zsh completion read from deja's
own help."""
import os
import re
import shutil
import subprocess

import tap
from cli_helpers import DEJA, TMP, deja, tmp

SOURCE = os.environ["SOURCE_ROOT"]
BUILD = os.environ["BUILD_ROOT"]
MAN_SOURCE = os.path.join(SOURCE, "docs", "deja.1")
BASH = os.path.join(SOURCE, "contrib", "completion", "deja.bash")
ZSH = os.path.join(SOURCE, "contrib", "completion", "_deja")


def commands():
    r = deja("help")
    names = re.findall(r"^  ([a-z][a-z-]*)  ", r.stdout, re.M)
    assert len(names) >= 13, r.stdout
    return names


def render(path):
    env = dict(os.environ, MANWIDTH="80")
    env.pop("MAN_KEEP_FORMATTING", None)
    r = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout


@tap.test
def man_page_renders_with_a_section_per_command():
    if shutil.which("man") is None:
        tap.skip("man-db is not installed")
    text = render(MAN_SOURCE)
    for name in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "EXIT STATUS"]:
        assert re.search(r"^%s$" % name, text, re.M), name
    for command in commands():
        assert re.search(r"^   deja %s( |$)" % re.escape(command), text, re.M), command
    version = deja("--version").stdout.split()[1]
    assert "deja %s" % version in text, "the page names another version"
    for variable in ("DEJA_DB", "NO_COLOR"):
        assert variable in text


@tap.test
def meson_install_puts_the_page_and_completion_in_place():
    if shutil.which("man") is None:
        tap.skip("man-db is not installed")
    dest = tmp("destdir")
    r = subprocess.run(["meson", "install", "--no-rebuild", "-C", BUILD, "--destdir", dest],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    found = {os.path.relpath(os.path.join(d, f), dest) for d, _, fs in os.walk(dest) for f in fs}
    man = [f for f in found if f.endswith("man1/deja.1")]
    assert len(man) == 1, found
    assert any(f.endswith("bash-completion/completions/deja") for f in found), found
    assert any(f.endswith("zsh/vendor-completions/_deja") for f in found), found
    assert any(f.endswith("bin/deja") for f in found), found
    render(os.path.join(dest, man[0]))


def bash_complete(*words):
    """What bash offers after DEJA WORDS... (the last word is being typed)."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _deja;'
              ' printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(["bash", "-c", script, "bash", BASH, DEJA] + list(words),
                       capture_output=True, text=True, cwd=TMP)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@tap.test
def bash_completes_commands_options_and_values():
    assert bash_complete("se") == ["search"]
    assert sorted(bash_complete("")) == sorted(commands() + ["help", "--help", "--version"])
    assert set(bash_complete("search", "--f")) == {"--format"}
    assert "--threads" in bash_complete("search", "--") and "--count" in bash_complete("search", "--")
    assert bash_complete("search", "--format", "") == ["table", "tsv", "csv", "json"]
    assert bash_complete("show", "-f", "") == []          # FORMAT depends on --thread
    assert bash_complete("network", "--kind", "") == ["reply", "thread", "group", "crosspost", "site", "link",
                                                           "link-message"]
    assert bash_complete("plot", "n") == ["network"]
    assert bash_complete("search", "--limit", "") == []   # a number: nothing to offer
    with open(tmp("corpus-x.db"), "w"):
        pass
    assert bash_complete("stats", "--db", "corpus-") == ["corpus-x.db"]


ZSH_STUBS = r'''
compadd () { [[ $1 == -- ]] && shift; print -l -- "$@"; }
_describe () { local -a a; a=("${(@P)4}"); print -l -- ${a%%:*}; }
_files () { print -- "<files>"; }
_call_program () { shift; "$@"; }
'''


def zsh_complete(*words):
    script = ZSH_STUBS + 'words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; source %s' % ZSH
    r = subprocess.run(["zsh", "-f", "-c", script, "zsh", DEJA] + list(words),
                       capture_output=True, text=True, cwd=TMP)
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.splitlines() if w]


@tap.test
def zsh_completes_commands_options_and_values():
    if shutil.which("zsh") is None:
        tap.skip("zsh is not installed")
    assert sorted(zsh_complete("")) == sorted(commands())
    assert "--format" in zsh_complete("search", "--") and "--threads" in zsh_complete("search", "--")
    assert zsh_complete("search", "--format", "") == ["table", "tsv", "csv", "json"]
    assert zsh_complete("plot", "") == ["messages", "authors", "threads", "posters", "network", "languages",
                                       "crossposts", "domains", "roles"]
    assert zsh_complete("stats", "--db", "") == ["<files>"]
    assert zsh_complete("search", "--limit", "") == []


if __name__ == "__main__":
    tap.main(TMP)
