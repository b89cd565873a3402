//! Playing, pausing and stepping: the player moves (its arithmetic is
//! [`Player`]'s), the view draws the frame, and at each pause the status
//! line and the links say where it is.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::frame::{draw, say_where, status};
use super::links::publish;
use super::state::{with_player, Player};
use crate::dom::window;

type FrameCallback = Closure<dyn FnMut(f64)>;

thread_local! {
    static FRAME: RefCell<Option<FrameCallback>> = const { RefCell::new(None) };
}

/// Play or pause (at the end, play starts again from the beginning).
pub fn toggle() {
    let playing = with_player(Player::toggle);
    draw();
    if playing == Some(true) {
        let speed = with_player(|p| p.speed).unwrap_or(1.0);
        // A phone has no space bar: its reader taps.
        let how = if touch() { "tap Pause to stop" } else { "space pauses" };
        status(&format!("Playing at {speed}x; {how}."));
        request_frame();
    } else {
        say_where();
        publish();
    }
}

/// A step on or back ([`Player::step`]), or with `fine` to the next (or
/// previous) ms something happens on either side ([`Player::step_fine`]).
pub fn step(forward: bool, fine: bool) {
    with_player(|p| if fine { p.step_fine(forward) } else { p.step(forward) });
    draw();
    say_where();
    publish();
}

/// Whether the reader's main pointer is a finger (a phone, a tablet).
pub fn touch() -> bool {
    window().match_media("(pointer: coarse)").ok().flatten().is_some_and(|m| m.matches())
}

fn request_frame() {
    FRAME.with(|f| {
        let mut f = f.borrow_mut();
        let callback = f.get_or_insert_with(|| Closure::<dyn FnMut(f64)>::new(next_frame));
        let _ = window().request_animation_frame(callback.as_ref().unchecked_ref());
    });
}

/// One frame of playing; at the end it pauses and says where.
fn next_frame(now: f64) {
    let Some(more) = with_player(|p| p.advance(now)) else { return };
    draw();
    if more {
        request_frame();
    } else {
        say_where();
        publish();
    }
}
