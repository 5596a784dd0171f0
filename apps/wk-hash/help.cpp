// wk-hash's help text: the footer of `wk-hash --help` (its formats from the library's method
// list) and of `wk-hash audit --help`; the method lists of the options and their messages.
#include <algorithm>
#include <string_view>

#include "wk_hash.hpp"

namespace wk::hash_app {

// wk-hash --help's footer: this, the formats paragraph (made of the library's method list), then
// kFooterTail.
const char* const kFooterHead = R"(What each subcommand reads and writes:
  hash     one password per line in, one crypt string per line out (fresh random salts)
  crypt    SETTING<TAB>PASSWORD per line in, the crypt string for that exact setting out
  verify   HASH<TAB>PASSWORD per line in, "line N: OK" or "line N: MISMATCH" out
  audit    --hashes FILE (user:hash[:...], user:hash or hash lines) and candidates (--wordlist,
           --rules, --mask): accounts that need no password (an empty password field) and
           accounts whose password is a candidate; --pot, --show, --session/--restore

Examples:
  wk-hash hash -i passwords.txt -o hashes.txt          yescrypt $y$j9T$, as mkpasswd and Debian
  wk-hash hash --method sha512crypt -i passwords.txt -o hashes.txt
  wk-hash hash --method bcrypt --cost 10 --users -i users.txt | chpasswd -e
  wk-hash hash --method sha256crypt --rounds 10000 --json < passwords.txt
  printf '$6$saltsalt\tsecret\n' | wk-hash crypt
  wk-hash verify -i pairs.tsv && echo "all passwords match"
  wk-hash audit --hashes /etc/shadow --wordlist common-passwords.txt
  wk-hash audit --hashes /etc/shadow --wordlist words.txt --rules share/rules/warpkit64.rule --pot audit.pot
  wk-hash verify --device cpu -i pairs.tsv      libxcrypt on all cores, no GPU
  wk-hash hash --method sha512crypt --gpus 0,1 -i big.txt -o hashes.txt   two GPUs (default: all)

Formats:
)";

// The text after the formats paragraph.
const char* const kFooterTail = R"(
Input:
  Standard input unless -i FILE; standard output unless -o FILE. An -o file is written to a
  temporary file in its folder and renamed into place when complete (through a symbolic link:
  its target is replaced, the link stays); a FIFO or device (/dev/stdout, /dev/null) is written
  in place. No output may be a file the job reads (-i, --hashes, --wordlist, or standard input
  redirected from it; links followed): that is a usage error before any work.
  Lines end in LF or CRLF (one CR before the LF is removed); the final newline is optional; an
  empty line is an empty password. A password is 0..511 bytes of anything but NUL. crypt and
  verify split each line at its first TAB, so passwords may contain TABs; hash --users splits at
  the first ':'. A line may be at most 65536 bytes long: a longer one is an error of its own
  (only its first 64 KiB are kept in memory), and an input with no end of line within 16 MiB
  (such as /dev/zero) is no list of lines: the job ends with exit status 1. The input is read
  as it is hashed, a few slices of 2^18 lines at a time: memory stays bounded whatever its size.

At a terminal (standard input is one, no -i FILE):
  One password per run, asked for on standard error and read with the terminal's echo off:
  hash and crypt ask twice ("Password: ", "Retype password: ") and end with exit status 1 when
  the two differ; verify asks once. Before it hash --users asks "User: ", crypt "Setting: " and
  verify "Hash: " (shown as typed). For many passwords give a file (-i FILE) or a pipe. Ctrl-C,
  SIGTERM or a closed terminal at a prompt puts the echo back before the process ends.

Standard output and standard error:
  The data -- hashes, verify results, audit findings -- go to the output (standard output or
  -o FILE); prompts, the progress line, notices, errors and the summary to standard error. -q
  leaves errors and prompts only; -v adds the backend and its device, counts and the time of
  each stage.

Errors:
  A malformed line (no TAB, a password over 511 bytes, a setting libxcrypt rejects, a line over
  65536 bytes, ...) is reported on standard error as "line N: reason" -- never with the line's
  bytes (a position at most) -- and skipped; the other lines are still processed. Output lines
  stay in input order. An input with no lines is said in a notice (hash, crypt) or is an error
  (verify, audit: no password was checked).

--json:
  JSON Lines on the output instead of text, one object per input line:
    hash, crypt:  {"line":N,"hash":"$6$..."} (+ "user" with --users) or {"line":N,"error":"..."}
    verify:       {"line":N,"status":"OK"|"MISMATCH"|"ERROR"} (+ "error")
    audit:        {"user":"...","line":N,"finding":"no password set"|"password in the word list"|
                  "password from the candidates"|"password in the pot file"} (+ "password" with
                  --show-passwords); --show: {"user":"...","line":N,"password":"..."}

Many machines (MPI):
  mpirun -np N wk-hash hash|crypt|verify|audit ... (or srun) splits the lines (audit: the
  candidates) into chunks dealt on demand over N ranks; rank 0 writes the one output in input
  order. The input must be a file every rank can read (-i FILE); each rank reads only its chunks.
  docs/scale-out.md.

Exit status:
  0    every line succeeded (verify: and every password matched; audit: every account was
       checked and none is weak)
  1    some line failed or could not be checked; verify: or some password did not match; audit:
       or some account is weak -- no password set, or a password from the word list -- as a
       linter fails on a finding; verify, audit: nothing was checked; at a terminal: nothing was
       typed (Ctrl-D) or the two passwords typed differ
  2    usage error, before any work
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP: an -o file is left as it was, no temporary file
       remains))";

namespace {

// `text` in lines of at most `width` columns, each indented by two spaces and ended by '\n'
// (words longer than a line stand alone).
std::string wrap(std::string_view text, std::size_t width) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += line.empty() ? "  " : " ";
    line += word;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

}  // namespace

std::string footer() {
  std::vector<std::string> formats;
  for (const hash::MethodInfo& m : hash::computed_methods()) formats.push_back(std::string(m.name) + " (" + m.formats + ")");
  const std::string paragraph =
      join(formats, " and ") +
      " run on the GPU; every other method libxcrypt knows (descrypt, $gy$, $sha1$, ...) and yescrypt / scrypt "
      "settings with a ROM or over 1 GiB of memory run on the CPU through libxcrypt, in the crypt, verify and audit "
      "subcommands. Output is byte-identical to libxcrypt's crypt_rn. Defaults are libxcrypt's: yescrypt at cost 5 "
      "($y$j9T$) when --method is not given, 5000 rounds for sha-crypt (rounds=N is written only when --rounds is "
      "given), cost 5 for bcrypt, 7 for scrypt.";
  return kFooterHead + wrap(paragraph, 95) + kFooterTail;
}

std::string join(const std::vector<std::string>& items, const char* last) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += i + 1 == items.size() ? last : ", ";
    out += items[i];
  }
  return out;
}

std::vector<std::string> method_names(bool (*pick)(const hash::MethodInfo&)) {
  std::vector<std::string> out;
  for (const hash::MethodInfo& m : hash::computed_methods())
    if (!pick || pick(m)) out.push_back(m.name);
  return out;
}

const char* const kAuditFooter = R"(The hash list (--hashes): one account per line, shadow(5) style user:hash[:more fields],
user:hash, or a hash alone (its account named by its line: "line 7"). An empty password field
means no password is needed: such accounts are listed first, as "no password set". Accounts with
'*' or '!...' (disabled or locked) are skipped.

Which hashes can be checked: a hash counts only when crypt(3), given it as the setting, writes a
string of its exact shape -- the same length, the same setting (up to the last '$'; descrypt's
2-byte salt, bsdicrypt's 9 bytes) and crypt's alphabet [./0-9A-Za-z] after it. Any other line
(an NT or raw MD5 hash, a truncated hash, rounds out of range) is named on standard error as
"FILE: line N: not checked: ..." and counted as not checked -- never as safe.

Candidates, each tried against every hash with that hash's own salt and cost:
  --wordlist FILE              the words as they are
  --wordlist FILE --rules FILE every rule applied to every word (hashcat/John rule language)
  --mask MASK                  ?l ?u ?d ?s ?a ?h ?H ?b, ?1..?4 from -1..-4 CHARSET, ?? a '?';
                               --increment: every length from one position up, shortest first
  --wordlist FILE --mask MASK  each word followed by the mask's candidates (--mask-first: after)
  --wordlist FILE --rules FILE --mask MASK
                               the same with each word through every rule first

--pot FILE: John the Ripper's pot format, one hash:password line per hash found (split at the
first ':'; crypt strings hold none). Created with mode 0600; each password found is appended and
synced at once. Hashes already in it are not tried again: they are findings "from the pot file".
--show prints user:password of the hash list's accounts found in the pot file, hashing nothing:
exit status 0 when it printed one, 1 when none is in the pot.

--session FILE: the audit's options and the next candidate (JSON, mode 0600, replaced whole),
written at the start, every 5 seconds at the end of a slice, and at the end of the slice under
way when SIGINT, SIGTERM or SIGHUP comes (exit status 130, no findings printed: the pot file
keeps what was found); removed when the audit completes. --restore FILE resumes it from there: no
candidate before the checkpoint is tried again. A second signal ends the process at once (the
last checkpoint stays).

Passwords go to the output only with --show-passwords or --show, and to the pot file; never to
standard error or the session file. Exit status, as a linter's: 0 when every account was checked
and none is weak; 1 when some account is weak (no password set, or a password found), a line
could not be checked, or nothing was audited; 2 for a usage error; 130 when interrupted.
Under mpirun/srun: no --pot, --session, --restore or --show; the files must not be standard input.

Example:
  wk-hash audit --hashes /etc/shadow --wordlist words.txt --rules share/rules/warpkit64.rule --pot audit.pot
  wk-hash audit --hashes /etc/shadow --pot audit.pot --show
  wk-hash audit --hashes hashes.txt --mask '?u?l?l?l?l?d?d?1' -1 '!@#$' --session audit.session
  wk-hash audit --restore audit.session)";

}  // namespace wk::hash_app
