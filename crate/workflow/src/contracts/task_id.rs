//! Task ids: `<workflow>_<yyyymmdd>_<slug>_<6 random chars>`, e.g. `build_20260208_auth_abc123`.
//!
//! - workflow: the workflow name lowercased with everything but ASCII letters and digits
//!   removed (`CODE_REVIEW` → `codereview`), 1 to 20 characters;
//! - date: a real calendar date written `yyyymmdd` (passed in: no clock here);
//! - slug: the title lowercased, runs of anything but ASCII letters and digits turned into
//!   one `-`, no `-` at either end, at most [`MAX_SLUG`] characters (cut at a `-` when one
//!   is near the limit); `task` when nothing is left;
//! - random: exactly 6 characters of `a-z0-9` (passed in: no randomness here).
//!
//! `_` separates the four parts and appears nowhere else, so an id splits unambiguously.

use serde::Serialize;
use std::fmt;

/// Longest slug kept in a task id.
pub const MAX_SLUG: usize = 40;
/// Longest workflow part of a task id.
pub const MAX_WORKFLOW: usize = 20;

/// A task id problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskIdError {
    /// Stable code: `task_id_workflow`, `task_id_date`, `task_id_random`, `task_id_slug`,
    /// `task_id_shape`.
    pub code: &'static str,
    /// What is wrong, naming the offending part.
    pub message: String,
}

impl fmt::Display for TaskIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TaskIdError {}

/// The four parts of a valid task id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskIdParts {
    /// Lowercase workflow (`build`).
    pub workflow: String,
    /// `yyyymmdd`.
    pub date: String,
    /// Title slug.
    pub slug: String,
    /// The 6 random characters.
    pub random: String,
}

fn err(code: &'static str, message: String) -> TaskIdError {
    TaskIdError { code, message }
}

fn check_date(date: &str) -> Result<(), TaskIdError> {
    let bad = || {
        err(
            "task_id_date",
            format!("date `{date}` is not a calendar date written yyyymmdd"),
        )
    };
    if date.len() != 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let year: u32 = date[0..4].parse().map_err(|_| bad())?;
    let month: u32 = date[4..6].parse().map_err(|_| bad())?;
    let day: u32 = date[6..8].parse().map_err(|_| bad())?;
    let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(bad()),
    };
    if year == 0 || day == 0 || day > days {
        return Err(bad());
    }
    Ok(())
}

fn check_random(random: &str) -> Result<(), TaskIdError> {
    if random.len() == 6
        && random
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        Ok(())
    } else {
        Err(err(
            "task_id_random",
            format!(
                "random part `{}` must be exactly 6 characters of a-z and 0-9",
                random.chars().take(20).collect::<String>()
            ),
        ))
    }
}

/// The workflow part of a task id: lowercase ASCII letters and digits of `workflow`.
pub fn workflow_part(workflow: &str) -> Result<String, TaskIdError> {
    let w: String = workflow
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if w.is_empty() || w.len() > MAX_WORKFLOW {
        return Err(err(
            "task_id_workflow",
            format!(
                "workflow `{}` must have 1 to {MAX_WORKFLOW} ASCII letters or digits",
                workflow.chars().take(40).collect::<String>()
            ),
        ));
    }
    Ok(w)
}

/// The slug of a title (rules in the module docs).
pub fn slug(title: &str) -> String {
    let mut s = String::new();
    let mut dash = false;
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            if dash && !s.is_empty() {
                s.push('-');
            }
            dash = false;
            s.push(c.to_ascii_lowercase());
            if s.len() > MAX_SLUG {
                break;
            }
        } else {
            dash = true;
        }
    }
    if s.len() > MAX_SLUG {
        let at_boundary = s.as_bytes().get(MAX_SLUG) == Some(&b'-');
        s.truncate(MAX_SLUG);
        // Prefer ending at a word boundary when one is in the last 15 characters.
        if !at_boundary {
            if let Some(cut) = s.rfind('-').filter(|&i| i >= MAX_SLUG - 15) {
                s.truncate(cut);
            }
        }
    }
    let s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "task".to_string()
    } else {
        s
    }
}

/// Builds a task id from its parts (see the module docs for the rules).
///
/// `date_yyyymmdd` and `random6` come from the caller (the shim owns the clock and the
/// random source); both are validated.
pub fn task_id(
    workflow: &str,
    date_yyyymmdd: &str,
    title: &str,
    random6: &str,
) -> Result<String, TaskIdError> {
    let w = workflow_part(workflow)?;
    check_date(date_yyyymmdd)?;
    check_random(random6)?;
    Ok(format!("{w}_{date_yyyymmdd}_{}_{random6}", slug(title)))
}

/// Checks that `id` is a well-formed task id and returns its parts.
pub fn validate_task_id(id: &str) -> Result<TaskIdParts, TaskIdError> {
    let parts: Vec<&str> = id.split('_').collect();
    if parts.len() != 4 {
        return Err(err(
            "task_id_shape",
            format!(
                "task id `{}` must have the shape <workflow>_<yyyymmdd>_<slug>_<6 chars> (4 parts separated by `_`, found {})",
                id.chars().take(80).collect::<String>(),
                parts.len()
            ),
        ));
    }
    let (w, date, s, random) = (parts[0], parts[1], parts[2], parts[3]);
    let ok_w = !w.is_empty()
        && w.len() <= MAX_WORKFLOW
        && w.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !ok_w {
        return Err(err(
            "task_id_workflow",
            format!("workflow part `{w}` must be 1 to {MAX_WORKFLOW} characters of a-z and 0-9"),
        ));
    }
    check_date(date)?;
    let ok_slug = !s.is_empty()
        && s.len() <= MAX_SLUG
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !ok_slug {
        return Err(err(
            "task_id_slug",
            format!(
                "slug `{s}` must be 1 to {MAX_SLUG} characters of a-z, 0-9 and single inner `-`"
            ),
        ));
    }
    check_random(random)?;
    Ok(TaskIdParts {
        workflow: w.to_string(),
        date: date.to_string(),
        slug: s.to_string(),
        random: random.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_ids() {
        assert_eq!(
            task_id("BUILD", "20260208", "Auth", "abc123").unwrap(),
            "build_20260208_auth_abc123"
        );
        assert_eq!(
            task_id(
                "code_review",
                "20240229",
                "  Fix: the Login (v2)!! ",
                "0a9z00"
            )
            .unwrap(),
            "codereview_20240229_fix-the-login-v2_0a9z00"
        );
        assert_eq!(
            task_id("plan", "20260101", "Ünïcödé ✓", "aaaaaa").unwrap(),
            "plan_20260101_n-c-d_aaaaaa"
        );
        assert_eq!(
            task_id("plan", "20260101", "!!!", "aaaaaa").unwrap(),
            "plan_20260101_task_aaaaaa"
        );
    }

    #[test]
    fn long_titles_are_bounded_at_a_word() {
        let id = task_id(
            "build",
            "20260208",
            "implement the user authentication feature with oauth and sessions",
            "abc123",
        )
        .unwrap();
        assert_eq!(
            id,
            "build_20260208_implement-the-user-authentication_abc123"
        );
        let s = slug(&"x".repeat(100));
        assert_eq!(s.len(), MAX_SLUG);
        assert!(validate_task_id(&id).is_ok());
    }

    #[test]
    fn rejects_bad_parts() {
        assert_eq!(
            task_id("", "20260208", "a", "abc123").unwrap_err().code,
            "task_id_workflow"
        );
        assert_eq!(
            task_id("b", "20260230", "a", "abc123").unwrap_err().code,
            "task_id_date"
        );
        assert_eq!(
            task_id("b", "20230229", "a", "abc123").unwrap_err().code,
            "task_id_date"
        );
        assert_eq!(
            task_id("b", "2026028", "a", "abc123").unwrap_err().code,
            "task_id_date"
        );
        assert_eq!(
            task_id("b", "20260208", "a", "ABC123").unwrap_err().code,
            "task_id_random"
        );
        assert_eq!(
            task_id("b", "20260208", "a", "abc12").unwrap_err().code,
            "task_id_random"
        );
    }

    #[test]
    fn validates_ids() {
        let p = validate_task_id("build_20260208_auth_abc123").unwrap();
        assert_eq!(
            (
                p.workflow.as_str(),
                p.date.as_str(),
                p.slug.as_str(),
                p.random.as_str()
            ),
            ("build", "20260208", "auth", "abc123")
        );
        for (bad, code) in [
            ("build_20260208_auth", "task_id_shape"),
            ("Build_20260208_auth_abc123", "task_id_workflow"),
            ("build_20261308_auth_abc123", "task_id_date"),
            ("build_20260208_-auth_abc123", "task_id_slug"),
            ("build_20260208_a--b_abc123", "task_id_slug"),
            ("build_20260208_auth_abc12!", "task_id_random"),
            ("", "task_id_shape"),
        ] {
            assert_eq!(validate_task_id(bad).unwrap_err().code, code, "{bad}");
        }
    }
}
