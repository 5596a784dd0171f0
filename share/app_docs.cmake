# cmake -P script: what an app installs beside itself, made from the built app (apps/CMakeLists.txt
# runs it at build time, so that the pages and scripts never disagree with the app's own parser).
#   -DMODE=man        OUT: the man page, through help2man (-DHELP2MAN) from `APP --help-all` (the
#                     help and every subcommand's) and the first line of `APP --version`
#   -DMODE=bash|zsh   OUT: the completion script `APP --completion bash|zsh` prints
# -DAPP: the built executable; -DNAME: its name (wk-image).

cmake_minimum_required(VERSION 3.25)

function(run_app out_var)
  execute_process(COMMAND ${APP} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " args)
    message(FATAL_ERROR "${NAME} ${args} failed (${rc}): ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

get_filename_component(out_dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})

if(MODE STREQUAL "bash" OR MODE STREQUAL "zsh")
  run_app(script --completion ${MODE})
  file(WRITE ${OUT}.tmp "${script}")
  file(RENAME ${OUT}.tmp ${OUT})
  return()
endif()

if(NOT MODE STREQUAL "man")
  message(FATAL_ERROR "MODE must be man, bash or zsh, not '${MODE}'")
endif()

# "wk-image 0.9.0 (commit abc1234)": help2man's "<program> <version>"; the commit is left out of the page.
run_app(version --version)
string(REGEX MATCH "^[^\n]*" version "${version}")
string(REGEX REPLACE " \\(commit [^)]*\\)$" "" version "${version}")
if(NOT version MATCHES "^${NAME} [0-9]")
  message(FATAL_ERROR "${NAME} --version does not begin with '${NAME} VERSION': '${version}'")
endif()

# The usage lines name the program as it was started (its path in the build tree): its name instead.
run_app(help --help-all)
string(REPLACE "${APP}" "${NAME}" help "${help}")
# The NAME line: the description that opens the help, "wk-image: run an operation pipeline ...".
string(REGEX MATCH "^[^\n]*" summary "${help}")
string(REGEX REPLACE "^${NAME}: *" "" summary "${summary}")

# help2man keeps the lines of an example apart only when they begin with "$ ": the lines of an
# "Examples:" block get one (else it fills them into one paragraph).
find_program(PERL perl REQUIRED)  # help2man is a perl script
set(work ${OUT}.work)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work})
file(WRITE ${work}/help.in "${help}")
execute_process(COMMAND ${PERL} -pe [=[if (/^Examples:\s*$/) { $ex = 1 } elsif ($ex && /^  (\S.*)$/) { $_ = "  \$ $1\n" } else { $ex = 0 }]=]
                        ${work}/help.in
                OUTPUT_FILE ${work}/help.txt RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perl failed on the help of ${NAME} (${rc})")
endif()

# help2man runs the program it documents: a stand-in that prints the help made above.
file(WRITE ${work}/${NAME} "#!/bin/sh\ncat '${work}/help.txt'\n")
file(CHMOD ${work}/${NAME} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1 --help-option=--help-all "--version-string=${version}"
          "--name=${summary}" --output=${work}/page ${work}/${NAME}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed for ${NAME} (${rc}): ${err}")
endif()

# help2man knows the headings Options, Examples, Files and Environment; it makes every other
# heading of the help ("Formats:", "Exit status:", "wk-hash audit:", ...) a subsection of the one
# before: they are sections of their own here. Within a subcommand's section (indented in the
# help) its "Options:" and "Positionals:" become subsections.
execute_process(COMMAND ${PERL} -0777 -pe [=[s/^\.SS "(.*):"$/.SH "\U$1\E"/mg; s/^\.IP\n(Options|Positionals|Subcommands):\n/.SS $1\n/mg]=]
                        ${work}/page
                OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perl failed on the page of ${NAME} (${rc})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
file(REMOVE_RECURSE ${work})
