# bash completion for deja.
#
# Commands, options and option values are read from deja's own help
# ('deja help', 'deja COMMAND --help'), so that completion never lags
# behind the program.  Installed as share/bash-completion/completions/deja.

_deja_values() {
    # The values of option $2 in help text $1: "--format=table|tsv|csv|json"
    # gives "table tsv csv json"; a placeholder (DB, FILE, N) gives nothing.
    local line vals
    line=$(printf '%s\n' "$1" | grep -E -- "(^|[ ,])$2[,=]" | head -n 1)
    vals=$(printf '%s\n' "$line" | sed -n 's/.*--[a-z-]*=\([^ ]*\).*/\1/p')
    case $vals in
        *'|'*) printf '%s\n' "${vals//|/ }" ;;
    esac
}

_deja() {
    local cur prev deja cmd help words values
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    deja=${COMP_WORDS[0]}
    COMPREPLY=()
    if (( COMP_CWORD == 1 )); then
        words=$("$deja" help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
        COMPREPLY=($(compgen -W "$words help --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    [[ $cmd == help ]] && {
        COMPREPLY=($("$deja" help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | grep -- "^$cur"))
        return
    }
    help=$("$deja" "$cmd" --help 2>/dev/null) || return
    case $prev in
        -d|--db|-o|--out|--file|--export|--import)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        -*)
            values=$(_deja_values "$help" "$prev")
            if [[ -n $values ]]; then
                COMPREPLY=($(compgen -W "$values" -- "$cur"))
                return
            fi
            # An option that takes a value (N, TEXT, GLOB, DATE): nothing to offer.
            if printf '%s\n' "$help" | grep -E -- "(^|[ ,])$prev[,=]" | grep -q -- '--[a-z-]*='; then
                return
            fi ;;
    esac
    if [[ $cur == -* ]]; then
        words=$(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]*' | sort -u)
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    elif [[ $cmd == plot ]]; then
        words=$(printf '%s\n' "$help" | sed -n '/^Charts:/,$s/^  \([a-z]*\)  .*/\1/p')
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

complete -F _deja deja
