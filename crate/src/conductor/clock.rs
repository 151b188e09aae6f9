//! ISO 8601 timestamps to seconds since the epoch, without a date library: the core never
//! reads a clock, it only compares the times the shim passes in with those in the state.

/// Parses an RFC 3339 / ISO 8601 date-time (`2026-01-17T10:30:00Z`, with optional fraction
/// and `+hh:mm` offset) to whole seconds since 1970-01-01T00:00:00Z. `None` when it is not one.
pub fn parse_iso(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    if b.len() < 19 || b.len() > 40 {
        return None;
    }
    let year = digits(b, 0, 4)?;
    let month = digits(b, 5, 2)?;
    let day = digits(b, 8, 2)?;
    let hour = digits(b, 11, 2)?;
    let minute = digits(b, 14, 2)?;
    let second = digits(b, 17, 2)?;
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if separators.iter().any(|&(i, c)| b[i] != c) || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &b[19..];
    if let Some(after_dot) = rest.strip_prefix(b".") {
        let n = after_dot.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        rest = &after_dot[n..];
    }
    let offset = match rest {
        [] | [b'Z'] | [b'z'] => 0,
        [sign @ (b'+' | b'-'), ..] if rest.len() == 6 && rest[3] == b':' => {
            let h = digits(rest, 1, 2)?;
            let m = digits(rest, 4, 2)?;
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'+' {
                minutes * 60
            } else {
                -minutes * 60
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second.min(59) - offset)
}

fn digits(b: &[u8], start: usize, len: usize) -> Option<i64> {
    let slice = b.get(start..start + len)?;
    slice.iter().try_fold(0i64, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse_iso;

    #[test]
    fn known_instants() {
        assert_eq!(parse_iso("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso("2026-01-17T10:30:00Z"), Some(1_768_645_800));
        assert_eq!(parse_iso("2026-01-17T10:30:00.123Z"), Some(1_768_645_800));
        assert_eq!(parse_iso("2026-01-17T11:30:00+01:00"), Some(1_768_645_800));
        assert_eq!(parse_iso("2024-02-29T00:00:00Z"), Some(1_709_164_800));
        for bad in [
            "",
            "2026-01-17",
            "2026-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-01-17T10:30:00Q",
            "2026-01-17T10:30:00.Z",
            "yesterday at noon",
        ] {
            assert_eq!(parse_iso(bad), None, "{bad:?}");
        }
    }
}
