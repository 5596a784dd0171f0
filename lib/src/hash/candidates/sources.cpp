// Indexable candidate sources. Every source maps an index to its candidate by arithmetic alone (no
// state carried from one call to the next), so slices of one source can run anywhere, in any
// order, and a checkpointed index resumes exactly where it stopped.
#include "wk/hash/candidates.hpp"

#include <algorithm>
#include <limits>

namespace wk::hash {
namespace {

constexpr std::uint64_t kMaxIndex = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kMaxIndex / a ? kMaxIndex : a * b;
}

// What every source promises about its candidates: no longer than crypt(3) takes and no NUL byte
// (?b makes those; a C string would cut them short, so they would repeat a shorter candidate).
bool usable(std::string_view candidate) {
  return candidate.size() <= kMaxCandidateBytes && candidate.find('\0') == std::string_view::npos;
}

class WordlistSource final : public CandidateSource {
 public:
  explicit WordlistSource(std::span<const std::string_view> words) : words_(words) {}
  std::uint64_t size() const override { return words_.size(); }
  bool get(std::uint64_t index, std::string& out) const override {
    out.assign(words_[index]);
    return usable(out);
  }

 private:
  std::span<const std::string_view> words_;
};

class RulesSource final : public CandidateSource {
 public:
  RulesSource(std::span<const std::string_view> words, std::span<const Rule> rules) : words_(words), rules_(rules) {}
  std::uint64_t size() const override { return saturating_mul(words_.size(), rules_.size()); }
  bool get(std::uint64_t index, std::string& out) const override {
    return rules_[index % rules_.size()].apply(words_[index / rules_.size()], out);
  }
  // The words of the run must fit the GPU's candidate buffer: a run stops before a longer word
  // (which a rule might still cut to a candidate; those few go as strings).
  CandidateRun candidate_run(std::uint64_t index, std::uint64_t limit) const override {
    if (index >= size()) return {};
    const std::uint64_t r = rules_.size(), end = index + std::min(limit, size() - index);
    std::uint64_t stop = index;
    while (stop < end) {
      const std::uint64_t w = stop / r;
      if (words_[w].size() > kMaxCandidateBytes) break;
      stop = std::min(end, (w + 1) * r);
    }
    if (stop == index) return {};
    return {nullptr, words_, rules_, index, stop - index};
  }

 private:
  std::span<const std::string_view> words_;
  std::span<const Rule> rules_;
};

// One mask, or its prefixes of increasing length one after another (--increment).
class MaskSource final : public CandidateSource {
 public:
  MaskSource(const Mask& mask, std::size_t min_len) {
    // An empty candidate is no password to try: increments start at one position.
    const std::size_t first = std::clamp<std::size_t>(min_len, 1, std::max<std::size_t>(mask.length(), 1));
    for (std::size_t len = first; len < mask.length(); ++len) masks_.push_back(mask.prefix(len));
    masks_.push_back(mask);
    for (const Mask& m : masks_) size_ = m.size() > kMaxIndex - size_ ? kMaxIndex : size_ + m.size();
  }
  std::uint64_t size() const override { return size_; }
  bool get(std::uint64_t index, std::string& out) const override {
    for (const Mask& m : masks_) {
      if (index < m.size()) {
        out.resize(m.length());
        m.candidate(index, out.data());
        return usable(out);
      }
      index -= m.size();
    }
    return false;  // index >= size(): the caller's mistake, but no candidate either
  }
  CandidateRun candidate_run(std::uint64_t index, std::uint64_t limit) const override {
    for (const Mask& m : masks_) {
      if (index < m.size()) {
        if (m.makes_nul()) return {};
        return {&m, {}, {}, index, std::min(limit, m.size() - index)};
      }
      index -= m.size();
    }
    return {};
  }

 private:
  std::vector<Mask> masks_;
  std::uint64_t size_ = 0;
};

class RangeSource final : public CandidateSource {
 public:
  RangeSource(const CandidateSource& source, std::uint64_t begin, std::uint64_t end)
      : source_(source), begin_(std::min(begin, source.size())), end_(std::clamp(end, begin_, source.size())) {}
  std::uint64_t size() const override { return end_ - begin_; }
  bool get(std::uint64_t index, std::string& out) const override { return source_.get(begin_ + index, out); }
  CandidateRun candidate_run(std::uint64_t index, std::uint64_t limit) const override {
    if (index >= size()) return {};
    return source_.candidate_run(begin_ + index, std::min(limit, size() - index));
  }

 private:
  const CandidateSource& source_;
  std::uint64_t begin_, end_;
};

// Each candidate of `base` (the words as they are, or through rules) followed by each of the
// mask's (mask_first: preceded by them). index = base index * mask.size() + mask candidate: a base
// candidate's variants side by side, as in RulesSource.
class HybridSource final : public CandidateSource {
 public:
  HybridSource(std::unique_ptr<CandidateSource> base, const Mask& mask, bool mask_first)
      : base_(std::move(base)), mask_(mask), mask_first_(mask_first) {}
  std::uint64_t size() const override { return saturating_mul(base_->size(), mask_.size()); }
  bool get(std::uint64_t index, std::string& out) const override {
    if (!base_->get(index / mask_.size(), out)) return false;
    const std::size_t word = out.size();
    if (word + mask_.length() > kMaxCandidateBytes) return false;
    out.resize(word + mask_.length());
    if (mask_first_) std::copy_backward(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(word), out.end());
    mask_.candidate(index % mask_.size(), out.data() + (mask_first_ ? 0 : word));
    return usable(out);
  }

 private:
  std::unique_ptr<CandidateSource> base_;
  Mask mask_;
  bool mask_first_;
};

}  // namespace

bool CandidateRun::get(std::uint64_t j, std::string& out) const {
  const std::uint64_t index = first + j;
  if (mask) {
    out.resize(mask->length());
    mask->candidate(index, out.data());
    return true;
  }
  return rules[index % rules.size()].apply(words[index / rules.size()], out);
}

std::unique_ptr<CandidateSource> range_source(const CandidateSource& source, std::uint64_t begin, std::uint64_t end) {
  return std::make_unique<RangeSource>(source, begin, end);
}

std::unique_ptr<CandidateSource> wordlist_source(std::span<const std::string_view> words) {
  return std::make_unique<WordlistSource>(words);
}

std::unique_ptr<CandidateSource> rules_source(std::span<const std::string_view> words, std::span<const Rule> rules) {
  if (rules.empty()) return wordlist_source(words);
  return std::make_unique<RulesSource>(words, rules);
}

std::unique_ptr<CandidateSource> mask_source(const Mask& mask, std::size_t min_len) {
  return std::make_unique<MaskSource>(mask, min_len);
}

std::unique_ptr<CandidateSource> hybrid_source(std::span<const std::string_view> words, const Mask& mask,
                                               bool mask_first) {
  return hybrid_source(wordlist_source(words), mask, mask_first);
}

std::unique_ptr<CandidateSource> hybrid_source(std::unique_ptr<CandidateSource> base, const Mask& mask, bool mask_first) {
  return std::make_unique<HybridSource>(std::move(base), mask, mask_first);
}

}  // namespace wk::hash
