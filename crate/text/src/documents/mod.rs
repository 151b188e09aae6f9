//! Reading the documents agents write: Markdown structure ([`markdown`], on pulldown-cmark)
//! and YAML frontmatter ([`frontmatter`]). Shared by routing and contracts.

pub mod frontmatter;
pub mod markdown;
