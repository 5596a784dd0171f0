#pragma once
// Password candidates for `wk-hash audit`: word-mangling rules (the common subset of John the
// Ripper's and hashcat's rule language, at least every function hashcat's best64.rule uses), masks
// (?l ?u ?d ?s ?a ?h ?H ?b, four custom charsets, length ranges) and their combinations, as
// indexable sources: candidate k of a source is always the same string, so an audit can be split
// into slices [begin, end) and resumed from a checkpointed index without trying any candidate
// twice.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wk::hash {

// The longest candidate any source makes: what crypt(3) takes (check_password: at most 511 bytes).
inline constexpr std::size_t kMaxCandidateBytes = 511;

// One rule (one line of a rule file), parsed once and applied to many words.
class Rule {
 public:
  // nullopt and *error set (naming the position and the function, never a word) when the text is
  // not a rule of the supported language. Spaces between functions are ignored, as in hashcat.
  static std::optional<Rule> parse(std::string_view text, std::string* error = nullptr);
  // What the rule makes of `word` into `out`; false when it rejects the word (a reject function, or
  // a result longer than kMaxCandidateBytes or containing a NUL byte).
  bool apply(std::string_view word, std::string& out) const;
  const std::string& text() const noexcept { return text_; }
  // Its functions in order: what the GPU's copy of the rule holds.
  struct Op {
    char fn = ':';
    unsigned char a = 0, b = 0;  // numeric positions or characters, by function
  };
  std::span<const Op> ops() const noexcept { return ops_; }

 private:
  std::string text_;
  std::vector<Op> ops_;
};

// A rule file's lines: empty lines and lines starting with '#' are skipped; a line that does not
// parse is reported in `errors` (1-based line, why) and left out.
std::vector<Rule> parse_rules(std::span<const std::string_view> lines,
                              std::vector<std::pair<std::size_t, std::string>>* errors = nullptr);

// A mask: one position per placeholder (?l lower, ?u upper, ?d digit, ?s the 33 printable
// specials, ?a all 95 printable, ?h 0-9a-f, ?H 0-9A-F, ?b all 256 bytes, ?1..?4 custom charsets,
// ?? a literal '?') or literal byte. Candidates enumerate with the last position changing fastest.
class Mask {
 public:
  // Throws wk::Error{usage} naming the position for a malformed mask or a custom charset that is
  // not given. Custom charsets may themselves use the built-in placeholders ("?l?d").
  static Mask parse(std::string_view mask, const std::array<std::string, 4>& custom = {});
  std::size_t length() const noexcept { return sets_.size(); }
  // Candidates of this mask (the product of the positions' charset sizes; saturates at UINT64_MAX).
  std::uint64_t size() const noexcept { return size_; }
  // The first `len` positions only (len <= length()): what --increment tries.
  Mask prefix(std::size_t len) const;
  // Candidate `index` (< size()) into out[0 .. length()).
  void candidate(std::uint64_t index, char* out) const;
  // Position p's charset (what candidate() picks from with the index's digit for p).
  const std::string& charset(std::size_t p) const { return sets_[p]; }
  // Whether a candidate may hold a NUL byte (?b, or a custom charset with one): such candidates
  // are no passwords crypt(3) takes.
  bool makes_nul() const noexcept;

 private:
  std::vector<std::string> sets_;
  std::uint64_t size_ = 1;
};

// Consecutive candidates of one source that an engine can make where it hashes them (on the GPU)
// instead of taking strings, one of two kinds:
// - a mask's candidates [first, first + count), none with a NUL byte (mask set);
// - words through rules (rules not empty): candidate first + j is rules[(first + j) % R] applied
//   to words[(first + j) / R], R = rules.size(), each word at most kMaxCandidateBytes long; one a
//   rule rejects makes no candidate.
struct CandidateRun {
  const Mask* mask = nullptr;
  std::span<const std::string_view> words;
  std::span<const Rule> rules;
  std::uint64_t first = 0, count = 0;

  bool empty() const noexcept { return mask == nullptr && rules.empty(); }
  // Candidates [first + begin, first + begin + n) of the same kind.
  CandidateRun part(std::uint64_t begin, std::uint64_t n) const {
    CandidateRun r = *this;
    r.first += begin;
    r.count = n;
    return r;
  }
  // Candidate first + j into `out`; false when a rule rejects it.
  bool get(std::uint64_t j, std::string& out) const;
};

// An indexable stream of candidates.
class CandidateSource {
 public:
  virtual ~CandidateSource() = default;
  virtual std::uint64_t size() const = 0;
  // Candidate `index` (< size()) into `out`; false when that index makes no candidate (a rule
  // rejected the word): it is skipped and still counts as done. The audit calls it from several
  // threads at once, for different indices.
  virtual bool get(std::uint64_t index, std::string& out) const = 0;
  // When candidates [index, index + n) are a run (CandidateRun) for some n >= 1: the longest such
  // run of at most `limit` (>= 1) candidates, its mask, words and rules owned by this source; else
  // an empty run. Candidate index + j is then the run's candidate j. A mask's run ends where its
  // length does (--increment).
  virtual CandidateRun candidate_run(std::uint64_t index, std::uint64_t limit) const {
    (void)index;
    (void)limit;
    return {};
  }
};

// Candidates [begin, end) of `source` (clamped to its size), numbered from 0: a chunk of an audit
// dealt to an MPI rank, or the first `end` candidates. `source` must outlive it.
std::unique_ptr<CandidateSource> range_source(const CandidateSource& source, std::uint64_t begin, std::uint64_t end);
// The words as they are. The spans must outlive the source.
std::unique_ptr<CandidateSource> wordlist_source(std::span<const std::string_view> words);
// Every rule applied to every word: index = word * rules.size() + rule (a word's variants side by
// side). No rules: the words as they are.
std::unique_ptr<CandidateSource> rules_source(std::span<const std::string_view> words, std::span<const Rule> rules);
// A mask, or with min_len < mask length every prefix of min_len .. length positions (--increment),
// shortest first.
std::unique_ptr<CandidateSource> mask_source(const Mask& mask, std::size_t min_len);
// Hybrid: each word followed by each candidate of the mask (mask_first: preceded by it).
std::unique_ptr<CandidateSource> hybrid_source(std::span<const std::string_view> words, const Mask& mask,
                                               bool mask_first);
// The same over any source's candidates: rules_source's for the word list through rules, then the
// mask (index = base index * mask size + mask index). An index whose base candidate is rejected
// makes none.
std::unique_ptr<CandidateSource> hybrid_source(std::unique_ptr<CandidateSource> base, const Mask& mask, bool mask_first);

}  // namespace wk::hash
