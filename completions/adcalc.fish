# fish completion for adcalc.  Everything comes from `adcalc
# --completion-table`, which prints the table of options
# (src/cli/options.def) and the function names, so it always matches the
# adcalc being completed.  A line of it is
#     NAME <tab> KIND <tab> ARG <tab> DESCRIPTION
# with KIND flag, file, expr (function names), word (ARG lists the
# values), =word (the same, only as --name=WORD), value (nothing to offer)
# or function.  The bash (adcalc) and zsh (_adcalc) completions read the
# same table.  fish loads this file once, the first time it completes
# adcalc.

# the function names completing the name typed at the end of the
# expression being typed, each after the text before it and followed by '('
function __adcalc_expr
    set -l cur (commandline -ct | string replace -r '^[\'"]' '')
    set -l head (string replace -r '[A-Za-z0-9_]*$' '' -- "$cur")
    set -l word (string replace -- "$head" '' "$cur")
    set -l found
    for i in (seq (count $__adcalc_functions))
        set -l f $__adcalc_functions[$i]
        string match -q -- "$word*" $f; and set -a found "$head$f("\t"$__adcalc_docs[$i]"
    end
    # fish closes an open quote and adds a space after a unique match,
    # ending the expression being typed ('sin(x)+co' for 'sin(x)+cos(').
    # A second candidate that only extends the first keeps the match
    # ambiguous: fish then inserts their common part, "cos(", and stops.
    test (count $found) = 1; and set -a found (string replace -r '\(\t' '()\t' -- $found[1])
    printf '%s\n' $found
end

set -g __adcalc_functions
set -g __adcalc_docs
# adcalc takes no file names but those of its options
complete -c adcalc -f
command adcalc --completion-table 2>/dev/null | while read -l -d \t name kind arg desc
    if test "$kind" = function
        set -a __adcalc_functions $name
        set -a __adcalc_docs $desc
        continue
    end
    # -x is a short option, -at an old-style one, --name a long one
    set -l spell
    switch $name
        case '--*'
            set spell -l (string sub -s 3 -- $name)
        case '-?'
            set spell -s (string sub -s 2 -- $name)
        case '*'
            set spell -o (string sub -s 2 -- $name)
    end
    set -l value
    switch $kind
        case file
            set value -r -F
        case expr
            set value -x -a '(__adcalc_expr)'
        case word
            set value -x -a "$arg"
        case '=word'
            # only as --name=WORD: no -r, so the next word is not its value
            set value -f -a "$arg"
        case value
            set value -x
    end
    complete -c adcalc $spell $value -d "$desc"
end
