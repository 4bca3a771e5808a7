
# Without the bash-completion package (bash --norc, a minimal image), the
# script above would call its _get_comp_words_by_ref and _filedir. These
# take their place: where bash-completion is loaded they call it, else the
# words are COMP_WORDS with the pieces bash split at = and : joined again
# (_get_comp_words_by_ref -n =:), and file names come from compgen.
__rooftool_init_completion()
{
    COMPREPLY=()
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    local i w last= j=-1
    words=()
    cword=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if ((i > 1)) && [[ $w == [=:] || $last == [=:] ]]; then
            words[j]+=$w
        else
            ((j++))
            words[j]=$w
        fi
        ((i == COMP_CWORD)) && cword=$j
        last=$w
    done
    cur=${words[cword]-}
    prev=${words[cword-1]-}
}

__rooftool_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n' exts=${1%|} restore
    COMPREPLY=($(compgen -d -- "$cur"))
    if [[ $1 != -d ]]; then
        if [[ -n $exts ]]; then
            restore=$(shopt -p extglob)
            shopt -s extglob
            COMPREPLY+=($(compgen -f -X "!*.@($exts)" -- "$cur"))
            eval "$restore"
        else
            COMPREPLY+=($(compgen -f -- "$cur"))
        fi
    fi
    compopt -o filenames 2>/dev/null
}
