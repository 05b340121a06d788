use std::ptr::{null, null_mut};
use std::sync::atomic::AtomicUsize;

use super::*;

fn last_error() -> String {
    // SAFETY: the thread's last error is a valid C string.
    unsafe { CStr::from_ptr(ember_last_error()) }
        .to_string_lossy()
        .into_owned()
}

unsafe extern "C" fn count_deletes(_data: *mut c_void, ctx: *mut c_void) {
    (*(ctx as *const AtomicUsize)).fetch_add(1, Ordering::SeqCst);
}

#[test]
fn wrapped_memory_is_shared_and_given_back_once() {
    let mut data = vec![1f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let deleted = AtomicUsize::new(0);
    let ctx = &deleted as *const AtomicUsize as *mut c_void;
    // SAFETY: `data` outlives the value; sizes and strides have 2 entries.
    unsafe {
        let v = ember_tensor_wrap(
            data.as_mut_ptr() as *mut c_void,
            6,
            2,
            [3i64, 2].as_ptr(),
            [1i64, 3].as_ptr(),
            Some(count_deletes),
            ctx,
        );
        assert!(!v.is_null(), "{}", last_error());
        assert_eq!(ember_value_kind(v), EMBER_KIND_TENSOR);
        let (mut dt, mut nd, mut numel) = (0, 0usize, 0i64);
        assert_eq!(ember_tensor_dtype(v, &mut dt), EMBER_OK);
        assert_eq!(ember_tensor_ndim(v, &mut nd), EMBER_OK);
        assert_eq!(ember_tensor_numel(v, &mut numel), EMBER_OK);
        assert_eq!((dt, nd, numel), (6, 2, 6));
        let (mut sizes, mut strides) = ([0i64; 2], [0i64; 2]);
        assert_eq!(ember_tensor_sizes(v, sizes.as_mut_ptr()), EMBER_OK);
        assert_eq!(ember_tensor_strides(v, strides.as_mut_ptr()), EMBER_OK);
        assert_eq!((sizes, strides), ([3, 2], [1, 3]));
        let mut p = null_mut();
        assert_eq!(ember_tensor_data(v, &mut p), EMBER_OK);
        assert_eq!(p, data.as_mut_ptr() as *mut c_void, "no copy");
        let t = (*v).0.as_tensor().unwrap().contiguous().unwrap();
        assert_eq!(t.to_vec::<f32>(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        drop(t);
        // A list holds another reference: the memory is given back when both are gone.
        let list = ember_list([v].as_ptr(), 1);
        ember_value_free(v);
        assert_eq!(deleted.load(Ordering::SeqCst), 0);
        ember_value_free(list);
        assert_eq!(deleted.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn bad_tensors_are_invalid_arguments_and_keep_the_callers_memory() {
    let mut data = [0i64; 4];
    let deleted = AtomicUsize::new(0);
    let ctx = &deleted as *const AtomicUsize as *mut c_void;
    let p = data.as_mut_ptr() as *mut c_void;
    let wrap = |p: *mut c_void, dtype: c_int, sizes: &[i64], strides: Option<&[i64]>| {
        // SAFETY: the arrays hold `sizes.len()` entries; failures read nothing else.
        let v = unsafe {
            ember_tensor_wrap(
                p,
                dtype,
                sizes.len(),
                sizes.as_ptr(),
                strides.map_or(null(), |s| s.as_ptr()),
                Some(count_deletes),
                ctx,
            )
        };
        assert!(v.is_null());
        last_error()
    };
    assert!(wrap(p, 9, &[4], None).contains("9 is not a dtype code"));
    assert!(wrap(p, 4, &[-1], None).contains("negative dimension"));
    assert!(wrap(p, 4, &[i64::MAX, 4], None).contains("overflow"));
    assert!(wrap(p, 4, &[2, 2], Some(&[-2, 1])).contains("negative strides"));
    assert!(wrap(p, 4, &[2, 2], Some(&[i64::MAX, 1])).contains("overflow"));
    assert!(wrap(null_mut(), 4, &[4], None).contains("NULL"));
    let odd = (p as usize + 1) as *mut c_void;
    assert!(wrap(odd, 4, &[2], None).contains("aligned"));
    // SAFETY: null arrays with nonzero counts are refused, not read.
    unsafe {
        assert!(ember_tensor_wrap(p, 4, 2, null(), null(), None, null_mut()).is_null());
        assert!(last_error().contains("sizes is NULL"));
        assert!(ember_tensor_wrap(p, 4, 1000, [1i64].as_ptr(), null(), None, null_mut()).is_null());
        assert!(last_error().contains("dimensions"));
        assert!(ember_tensor_new(6, 1, [-5i64].as_ptr()).is_null());
    }
    assert_eq!(
        deleted.load(Ordering::SeqCst),
        0,
        "failed wraps never call the deleter"
    );
    // An empty tensor may have no memory at all.
    // SAFETY: no element is addressed.
    let v =
        unsafe { ember_tensor_wrap(null_mut(), 6, 1, [0i64].as_ptr(), null(), None, null_mut()) };
    assert!(!v.is_null(), "{}", last_error());
    // SAFETY: a live value.
    unsafe { ember_value_free(v) };
}

#[test]
fn scalars_lists_tuples_and_items() {
    // SAFETY: every pointer is a live value from this API or a local.
    unsafe {
        let i = ember_int(-7);
        let f = ember_float(2.5);
        let b = ember_bool(5);
        let n = ember_none();
        let t = ember_tensor_new(4, 2, [2i64, 3].as_ptr());
        let tuple = ember_tuple([i, f, b, n, t].as_ptr(), 5);
        for v in [i, f, b, n, t] {
            ember_value_free(v);
        }
        assert_eq!(ember_value_kind(tuple), EMBER_KIND_TUPLE);
        let mut len = 0usize;
        assert_eq!(ember_value_len(tuple, &mut len), EMBER_OK);
        assert_eq!(len, 5);
        let item = |k: usize| {
            let mut out = null_mut();
            assert_eq!(ember_value_item(tuple, k, &mut out), EMBER_OK);
            out
        };
        let (i, f, b, n, t) = (item(0), item(1), item(2), item(3), item(4));
        let (mut iv, mut fv, mut bv) = (0i64, 0f64, 0);
        assert_eq!(ember_value_to_int(i, &mut iv), EMBER_OK);
        assert_eq!(ember_value_to_float(f, &mut fv), EMBER_OK);
        assert_eq!(ember_value_to_bool(b, &mut bv), EMBER_OK);
        assert_eq!((iv, fv, bv), (-7, 2.5, 1));
        assert_eq!(ember_value_to_float(i, &mut fv), EMBER_OK);
        assert_eq!(fv, -7.0);
        assert_eq!(ember_value_kind(n), EMBER_KIND_NONE);
        let mut sizes = [0i64; 2];
        assert_eq!(ember_tensor_sizes(t, sizes.as_mut_ptr()), EMBER_OK);
        assert_eq!(sizes, [2, 3]);
        assert_eq!(
            (*t).0.as_tensor().unwrap().to_vec::<i64>(),
            [0; 6],
            "zeroed"
        );

        // Wrong kinds, indexes and pointers.
        assert_eq!(ember_value_to_int(f, &mut iv), EMBER_INVALID_ARGUMENT);
        assert!(
            last_error().contains("is a float, not an int"),
            "{}",
            last_error()
        );
        assert_eq!(ember_value_to_int(null(), &mut iv), EMBER_INVALID_ARGUMENT);
        assert_eq!(ember_value_to_int(i, null_mut()), EMBER_INVALID_ARGUMENT);
        let mut out = null_mut();
        assert_eq!(ember_value_item(tuple, 5, &mut out), EMBER_INVALID_ARGUMENT);
        assert!(out.is_null());
        assert!(last_error().contains("index 5 out of range (5 items)"));
        assert_eq!(ember_value_len(i, &mut len), EMBER_INVALID_ARGUMENT);
        assert_eq!(ember_tensor_ndim(i, &mut len), EMBER_INVALID_ARGUMENT);
        assert!(ember_list([i, null_mut()].as_ptr(), 2).is_null());
        assert!(last_error().contains("value 1 is NULL"));
        assert!(ember_tuple(null(), 3).is_null());
        let empty = ember_list(null(), 0);
        assert_eq!(ember_value_kind(empty), EMBER_KIND_LIST);
        for v in [i, f, b, n, t, tuple, empty] {
            ember_value_free(v);
        }
        ember_value_free(null_mut());
    }
}

#[test]
fn models_refuse_bad_arguments() {
    let mut out = null_mut();
    // SAFETY: null pointers are refused.
    unsafe {
        assert_eq!(
            ember_model_open(null(), null(), &mut out),
            EMBER_INVALID_ARGUMENT
        );
        assert!(out.is_null());
        assert_eq!(ember_model_num_inputs(null()), 0);
        assert!(ember_model_input_name(null(), 0).is_null());
        let mut v = null_mut();
        assert_eq!(
            ember_model_run(null_mut(), null(), 0, &mut v),
            EMBER_INVALID_ARGUMENT
        );
        assert!(last_error().starts_with("ember_model_run: the model is NULL"));
        let mut stats = std::mem::zeroed::<ember_memory_stats>();
        assert_eq!(
            ember_model_memory_stats(null(), &mut stats),
            EMBER_INVALID_ARGUMENT
        );
        assert!(last_error().starts_with("ember_model_memory_stats: the model is NULL"));
        ember_model_free(null_mut());
    }
}
