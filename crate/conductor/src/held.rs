//! The claims of other instances, indexed by literal head, so that checking a new pattern
//! looks only at the claims it could meet instead of at every claim held.
//!
//! Every path a normalised pattern matches begins with its literal head, cut at a segment
//! boundary ([`literal_head`]). Two patterns can share a path only when one head is the other
//! or a folder above it ([`heads_meet`]). So the candidates for a head `h` are the claims
//! whose head is `h`, one of `h`'s folders (the empty head included), or lies under `h`: a
//! few exact look-ups and one range of the sorted map. The full intersection then decides
//! among those few.

use std::collections::BTreeMap;

use serde::Serialize;

use super::glob::{heads_meet, literal_head};
use super::state::Instance;

/// A claim by position: the instance's index in the state, the claim's index in its list.
pub(crate) type ClaimAt = (usize, usize);

/// Claims of every instance but one, by literal head.
pub(crate) struct HeldIndex<'a> {
    by_head: BTreeMap<&'a str, Vec<ClaimAt>>,
    instances: &'a [Instance],
}

impl<'a> HeldIndex<'a> {
    /// Indexes the claims of `instances` except those of the instance at `skip`.
    pub(crate) fn new(instances: &'a [Instance], skip: usize) -> Self {
        let mut by_head: BTreeMap<&str, Vec<ClaimAt>> = BTreeMap::new();
        for (k, instance) in instances.iter().enumerate() {
            if k == skip {
                continue;
            }
            for (j, held) in instance.files_claimed.iter().enumerate() {
                by_head.entry(literal_head(held)).or_default().push((k, j));
            }
        }
        HeldIndex { by_head, instances }
    }

    /// The claims whose literal heads meet that of the normalised pattern `text`, in state
    /// order (instance, then claim), so answers list conflicts as a scan of every claim would.
    pub(crate) fn candidates(&self, text: &str) -> Vec<ClaimAt> {
        let mut found: Vec<ClaimAt> = Vec::new();
        match HeadLookup::of(literal_head(text)) {
            None => found.extend(self.by_head.values().flatten()),
            Some(lookup) => {
                for key in &lookup.exact {
                    if let Some(list) = self.by_head.get(key.as_str()) {
                        found.extend(list);
                    }
                }
                for (_, list) in self.by_head.range::<str, _>((
                    std::ops::Bound::Included(lookup.from.as_str()),
                    std::ops::Bound::Excluded(lookup.to.as_str()),
                )) {
                    found.extend(list);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found.retain(|&(k, j)| heads_meet(text, &self.instances[k].files_claimed[j]));
        found
    }
}

/// Where the claims that may meet a pattern with a given literal head are, in any store
/// sorted by head (this index, or a database's btree in byte order): the heads equal to it
/// or above it (exact look-ups), and the heads under it (one range).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeadLookup {
    /// The head itself and every folder above it, the empty head first.
    pub exact: Vec<String>,
    /// Heads under it: from `head/` (included) ...
    pub from: String,
    /// ... up to `head0` (excluded), `0` being the character after `/`.
    pub to: String,
}

impl HeadLookup {
    /// The look-ups for `head`; `None` for the empty head, which every claim may meet.
    pub fn of(head: &str) -> Option<HeadLookup> {
        if head.is_empty() {
            return None;
        }
        let mut exact: Vec<String> = std::iter::once(0)
            .chain(head.match_indices('/').map(|(i, _)| i))
            .map(|i| head[..i].to_string())
            .chain(std::iter::once(head.to_string()))
            .collect();
        exact.dedup();
        Some(HeadLookup {
            exact,
            from: format!("{head}/"),
            to: format!("{head}0"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(claims: &[&str]) -> Instance {
        Instance {
            files_claimed: claims.iter().map(|c| c.to_string()).collect(),
            ..Instance::default()
        }
    }

    /// The index finds exactly what a scan of every claim with `heads_meet` finds.
    #[test]
    fn candidates_are_the_claims_whose_heads_meet() {
        let instances = vec![
            holder(&["/w/src/a.ts", "/w/src/api/**", "/**", "/w/srcx/b.ts"]),
            holder(&["/w/src/*.ts", "/w/docs/a.md", "/w/src/api/users.ts", "/w"]),
            holder(&["/w/src/api/v1/**/*.rs", "/x/**", "/w/src/{a,b}/c.ts", "/"]),
        ];
        let wanted = [
            "/w/src/api/users.ts",
            "/w/src/**",
            "/w/**",
            "/**",
            "/w/srcx/**",
            "/w/src",
            "/w/src/api/v1/x.rs",
            "/y/z.ts",
            "/",
            "/w/src/a/c.ts",
        ];
        for skip in [usize::MAX, 1] {
            let index = HeldIndex::new(&instances, skip);
            for text in wanted {
                let mut scan = Vec::new();
                for (k, instance) in instances.iter().enumerate() {
                    for (j, held) in instance.files_claimed.iter().enumerate() {
                        if k != skip && heads_meet(text, held) {
                            scan.push((k, j));
                        }
                    }
                }
                assert_eq!(index.candidates(text), scan, "{text}");
            }
        }
    }

    /// The look-ups of a head: itself and every folder above it, and the range under it.
    #[test]
    fn head_lookups() {
        let l = HeadLookup::of("/w/src").unwrap();
        assert_eq!(l.exact, ["", "/w", "/w/src"]);
        assert_eq!((l.from.as_str(), l.to.as_str()), ("/w/src/", "/w/src0"));
        assert_eq!(HeadLookup::of("/").unwrap().exact, ["", "/"]);
        assert_eq!(HeadLookup::of(""), None);
    }
}
