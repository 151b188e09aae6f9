//! NSO's text layer: what every other part of the core reads with. [`documents`] reads
//! Markdown and frontmatter; [`glob`] is the one path glob syntax and matcher; [`hashing`]
//! gives the stable hashes decisions and records are keyed on. Pure: text in, structures out.

pub mod documents;
pub mod glob;
pub mod hashing;
