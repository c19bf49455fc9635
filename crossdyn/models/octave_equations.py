r"""Hand-derived M, C, G written in MATLAB, evaluated by GNU Octave.

Accepted inputs (the same roles, names and ``--names`` mapping as a Python file):

* ``my_arm.m``: a script file holding local functions (Octave's ``1;`` first line; a file that
  starts with ``function`` gets the ``1;`` added on its first line, so line numbers stay true);
* ``my_folder/``: function files (``M.m``, ``C.m``, ``G.m`` or ``mass_matrix.m`` …).

The functions are called as ``M(q, p)``, ``C(q, qd, p)`` (the n×n matrix or the n-vector
C q̇, told apart by shape), ``G(q, p)`` with ``q``, ``qd`` column vectors and ``p`` a struct:
1-based column vectors ``p.m``, ``p.L`` (= ``p.l``), ``p.Lc`` (= ``p.lc``), ``p.J`` (= ``p.I``),
``p.b``, ``p.fc``, ``p.armature`` (= ``p.Ia``, the reflected rotor inertia I_a of each joint, kg m²,
0 for an arm without); scalars ``p.m1``, ``p.L1``, ``p.Lc1``, ``p.J1``, ``p.Ia1`` (= ``p.armature1``), … ;
``p.g`` = |gravity| in the plane, ``p.gx``, ``p.gy``, ``p.n`` — the names of the Python side's ``p``.  Functions declared without ``p`` (``M(q)``,
``C(q, qd)``, ``G(q)``: parameters written as numbers) are called without it.

Every evaluation of a batch — all states × all parameter sets — runs inside ONE Octave call
(a loop in Octave that writes one float64 result file), so a default check (21,000
evaluations per function) costs one round trip, not 63,000.  Octave errors become
:class:`UserFileError` with the user's file, line and message; a call that does not return
within the timeout stops Octave and says so.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from crossdyn.models.user_equations import UserFileError
from crossdyn.models.octave_session import (OctaveDied, OctaveSession, OctaveTimeout,
                                            OctaveUnavailable, octave_string)

DEFAULT_TIMEOUT = 60.0
"""Seconds one Octave call (one batch of evaluations) may take before it is stopped."""

ROLE_NAMES = {"M": ("M", "mass_matrix"), "C": ("C", "coriolis", "bias"), "G": ("G", "gravity")}
ROLE_ARGS = {"M": "(q, p)", "C": "(q, qd, p)", "G": "(q, p)"}
ROLE_ARGS_NO_P = {"M": "(q)", "C": "(q, qd)", "G": "(q)"}
_ROLE_INDEX = {"M": 1, "C": 2, "G": 3}

# The Octave side: parameter structs, the batch loop, error reports.  Sourced once per session.
_HELPERS = r"""
1;
function p = crossdyn_params__(v, n)
  % v = [L; m; Lc; J; b; fc; Ia; gx; gy; gz] (7n + 3 numbers)
  L = v(1:n); m = v(n+1:2*n); Lc = v(2*n+1:3*n); J = v(3*n+1:4*n); b = v(4*n+1:5*n); fc = v(5*n+1:6*n);
  Ia = v(6*n+1:7*n); gv = v(7*n+1:7*n+3);
  p = struct();
  p.n = n; p.L = L; p.l = L; p.m = m; p.Lc = Lc; p.lc = Lc; p.J = J; p.I = J; p.b = b; p.fc = fc;
  p.armature = Ia; p.Ia = Ia;
  for i = 1:n
    s = int2str(i);
    p.(['L' s]) = L(i); p.(['l' s]) = L(i); p.(['m' s]) = m(i); p.(['Lc' s]) = Lc(i); p.(['lc' s]) = Lc(i);
    p.(['J' s]) = J(i); p.(['I' s]) = J(i); p.(['b' s]) = b(i); p.(['fc' s]) = fc(i);
    p.(['armature' s]) = Ia(i); p.(['Ia' s]) = Ia(i);
  end
  p.gx = gv(1); p.gy = gv(2); p.gravity = gv; p.g = hypot(gv(1), gv(2));
end

function crossdyn_probe__(names)
  for k = 1:numel(names)
    e = exist(names{k});
    a = -99;
    if e == 2 || e == 103
      try
        a = nargin(names{k});
      catch
        a = -98;
      end
    end
    printf('@@FN@@ %s %d %d\n', names{k}, e, a);
  end
end

function crossdyn_report__(err, role, s, i)
  printf('@@ERR@@ %d %d %d\n', role, s, i);
  printf('@@ID@@ %s\n', err.identifier);
  lines = strsplit(err.message, "\n");
  for k = 1:numel(lines)
    printf('@@MSG@@ %s\n', lines{k});
  end
  st = err.stack;
  for k = 1:numel(st)
    printf('@@AT@@ %d|%d|%s|%s\n', st(k).line, st(k).column, st(k).name, st(k).file);
  end
end

function [O, ckind, ok] = crossdyn_loop__(f, role, takes_p, Q, QD, P, n, ckind)
  % every state x parameter set, one call at a time (the reference path; errors name the state)
  N = columns(Q); S = columns(P); ok = false;
  if role == 3, O = zeros(n, N, S); else, O = zeros(n*n, N, S); end
  s = 0; i = 0;
  try
    for s = 1:S
      p = crossdyn_params__(P(:, s), n);
      for i = 1:N
        if role == 2
          if takes_p, out = f(Q(:, i), QD(:, i), p); else, out = f(Q(:, i), QD(:, i)); end
        elseif takes_p
          out = f(Q(:, i), p);
        else
          out = f(Q(:, i));
        end
        [k, msg] = crossdyn_shape__(out, role, n);
        if k < 0, error('crossdyn:shape', '%s', msg); end
        if role == 2
          if ckind == 0
            ckind = k;
          elseif k ~= ckind
            error('crossdyn:ckind', '%d %d', k, ckind);
          end
        end
        O(1:numel(out), i, s) = out(:);
      end
    end
  catch err
    crossdyn_report__(err, role, s, i);
    return;
  end
  ok = true;
end

function [k, msg] = crossdyn_shape__(out, role, n)
  % k: 1 an n x n matrix, 2 an n-vector, -1 neither (msg says why)
  msg = ''; k = -1;
  if ~(isnumeric(out) || islogical(out))
    error('crossdyn:type', '%s', class(out));
  end
  if ~isreal(out)
    error('crossdyn:complex', 'complex');
  end
  sz = size(out);
  if role == 1
    if numel(out) == n*n && (n == 1 || (numel(sz) == 2 && sz(1) == n && sz(2) == n)), k = 1; end
  elseif role == 2
    if n > 1 && numel(sz) == 2 && sz(1) == n && sz(2) == n
      k = 1;
    elseif numel(out) == n && sum(sz ~= 1) <= 1
      k = 2;
    end
  elseif numel(out) == n && sum(sz ~= 1) <= 1
    k = 2;
  end
  if k < 0, msg = mat2str(sz); end
end

function p = crossdyn_params_batch__(P, n, N)
  % p for all sets at once: a field that differs between sets becomes a batch value (one per state)
  S = columns(P); NS = N*S;
  p = crossdyn_params__(P(:, 1), n);
  if S == 1, return; end
  names = {{'L', 'l'}, {'m'}, {'Lc', 'lc'}, {'J', 'I'}, {'b'}, {'fc'}, {'armature', 'Ia'}};
  for j = 1:7
    rows_ = (j-1)*n + (1:n);
    V = P(rows_, :);
    if all(all(V == V(:, 1))), continue; end
    V = kron(V, ones(1, N));
    vb = crossdyn_value__(reshape(V, n, 1, NS));
    for a = 1:numel(names{j})
      p.(names{j}{a}) = vb;
      for i = 1:n
        p.([names{j}{a} int2str(i)]) = crossdyn_value__(reshape(V(i, :), 1, 1, NS));
      end
    end
  end
  if any(any(P(7*n+1:7*n+3, :) ~= P(7*n+1:7*n+3, 1)))
    error('crossdyn:batch', 'gravity differs between parameter sets');
  end
end

function [O, ckind, ok] = crossdyn_vec__(f, role, takes_p, Q, QD, P, n, ckind, zdir)
  % every state x parameter set in ONE call of the user's function, q a batch value (crossdyn_value__);
  % ok = false when the function does something the batch value does not support (then: the loop)
  global crossdyn_batch_n__
  N = columns(Q); S = columns(P); NS = N*S; ok = false; O = [];
  try
    qb = crossdyn_value__(reshape(repmat(Q, 1, S), n, 1, NS));
    pb = crossdyn_params_batch__(P, n, N);
    crossdyn_batch_n__ = NS; addpath(zdir);
    if role == 2
      qdb = crossdyn_value__(reshape(repmat(QD, 1, S), n, 1, NS));
      if takes_p, out = f(qb, qdb, pb); else, out = f(qb, qdb); end
    elseif takes_p
      out = f(qb, pb);
    else
      out = f(qb);
    end
    crossdyn_batch_n__ = 0; rmpath(zdir);
    if isa(out, 'crossdyn_value__')
      v = out.v;
    elseif isnumeric(out) || islogical(out)
      v = double(out) .* ones(1, 1, NS);
    else
      return;
    end
    if ~isreal(v) || size(v, 3) ~= NS || ndims(v) > 3, return; end
    r = size(v, 1); c = size(v, 2);
    [k, msg] = crossdyn_shape__(v(:, :, 1), role, n);
    if k < 0, return; end
    if role == 2
      if ckind ~= 0 && k ~= ckind, return; end
    end
    O = zeros(numel(v(:, :, 1)) + (role ~= 3 && k == 2) * (n*n - n), N, S);
    O(1:r*c, :, :) = reshape(v, r*c, N, S);
    % the same numbers as one call at a time? (first and last state of the first and last set)
    for s = unique([1 S])
      p = crossdyn_params__(P(:, s), n);
      for i = unique([1 N])
        if role == 2
          if takes_p, x = f(Q(:, i), QD(:, i), p); else, x = f(Q(:, i), QD(:, i)); end
        elseif takes_p
          x = f(Q(:, i), p);
        else
          x = f(Q(:, i));
        end
        if ~(isnumeric(x) || islogical(x)) || numel(x) ~= r*c, return; end
        y = O(1:r*c, i, s);
        if any(abs(double(x(:)) - y) > 1e-9 * (max(abs(y)) + 1e-300)), return; end
      end
    end
    if role == 2 && ckind == 0, ckind = k; end
    ok = true;
  catch
    crossdyn_batch_n__ = 0;
    if any(strcmp(strsplit(path(), pathsep()), zdir)), rmpath(zdir); end
    O = [];
  end
end

function crossdyn_free__(inpath, outpath, names, nargs, ckind, dt, steps, every)
  % RK4 free swing (tau = 0) of M qdd + C qd + G = 0, as crossdyn.analytic.integrators.rk4_step;
  % records [q; T = qd'*M*qd/2] after every `every` steps and the last one
  fid = fopen(inpath, 'r'); hd = fread(fid, 4, 'double'); n = hd(1);
  q = fread(fid, n, 'double'); qd = fread(fid, n, 'double'); P = fread(fid, 7*n + 3, 'double'); fclose(fid);
  p = crossdyn_params__(P, n);
  fM = str2func(names{1}); fC = str2func(names{2}); fG = str2func(names{3});
  nrec = numel(unique([every:every:steps steps]));
  R = zeros(n + 1, nrec); r = 0; status = 0; kfail = 0; role = 0;
  try
    role = 1; M = crossdyn_call__(fM, nargs(1), q, qd, p, 1);
    T0 = 0.5 * qd' * M * qd;
    for k = 1:steps
      [k1v, bad] = crossdyn_fd__(fM, fC, fG, nargs, ckind, q, qd, p);
      if bad, status = 2; kfail = k; break; end
      k1q = qd;
      k2q = qd + 0.5*dt*k1v;
      [k2v, bad] = crossdyn_fd__(fM, fC, fG, nargs, ckind, q + 0.5*dt*k1q, k2q, p);
      if bad, status = 2; kfail = k; break; end
      k3q = qd + 0.5*dt*k2v;
      [k3v, bad] = crossdyn_fd__(fM, fC, fG, nargs, ckind, q + 0.5*dt*k2q, k3q, p);
      if bad, status = 2; kfail = k; break; end
      k4q = qd + dt*k3v;
      [k4v, bad] = crossdyn_fd__(fM, fC, fG, nargs, ckind, q + dt*k3q, k4q, p);
      if bad, status = 2; kfail = k; break; end
      q = q + dt/6.0*(k1q + 2*k2q + 2*k3q + k4q);
      qd = qd + dt/6.0*(k1v + 2*k2v + 2*k3v + k4v);
      if ~(all(isfinite(q)) && all(isfinite(qd)) && max(abs(qd)) < 1e4), status = 1; kfail = k; break; end
      if mod(k, every) == 0 || k == steps
        M = crossdyn_call__(fM, nargs(1), q, qd, p, 1);
        r = r + 1; R(:, r) = [q; 0.5 * qd' * M * qd];
      end
    end
  catch err
    crossdyn_report__(err, role, 0, 0);
    return;
  end
  fid = fopen(outpath, 'w'); fwrite(fid, [status; kfail; r; T0; R(:)], 'double'); fclose(fid);
  printf('@@OK@@ %d free\n', ckind);
end

function out = crossdyn_call__(f, nargs, q, qd, p, role)
  if role == 2
    if nargs == 3, out = f(q, qd, p); else, out = f(q, qd); end
  elseif nargs == 2
    out = f(q, p);
  else
    out = f(q);
  end
  out = double(out);
end

function [a, singular] = crossdyn_fd__(fM, fC, fG, nargs, ckind, q, qd, p)
  n = numel(q);
  M = reshape(crossdyn_call__(fM, nargs(1), q, qd, p, 1), n, n);
  c = crossdyn_call__(fC, nargs(2), q, qd, p, 2);
  if ckind == 1, c = reshape(c, n, n) * qd; else, c = c(:); end
  g = crossdyn_call__(fG, nargs(3), q, qd, p, 3);
  singular = rcond(M) == 0;
  a = M \ (-c - g(:));
end

function crossdyn_one__(q, qd, P, names, nargs, ckind)
  % M, C, G at one state, printed (no files: a round trip of ~0.1 ms)
  n = numel(q); p = crossdyn_params__(P(:), n);
  role = 0; t0 = tic();
  try
    for role = 1:3
      if isempty(names{role}), printf('@@V@@ %d\n', role); continue; end
      out = crossdyn_call__(str2func(names{role}), nargs(role), q(:), qd(:), p, role);
      [k, msg] = crossdyn_shape__(out, role, n);
      if k < 0, error('crossdyn:shape', '%s', msg); end
      if role == 2
        if ckind == 0, ckind = k; elseif k ~= ckind, error('crossdyn:ckind', '%d %d', k, ckind); end
      end
      printf('@@V@@ %d %s\n', role, sprintf('%.17g ', out(:)));
    end
  catch err
    crossdyn_report__(err, role, 1, 1);
    return;
  end
  printf('@@OK@@ %d one %.6g\n', ckind, toc(t0));
end

function crossdyn_engine_init__(P, names, nargs, ckind)
  global crossdyn_engine__
  n = (numel(P) - 3) / 7;
  crossdyn_engine__ = struct('p', crossdyn_params__(P(:), n), 'nargs', nargs, 'ckind', ckind, 'n', n);
  crossdyn_engine__.f = {str2func(names{1}), str2func(names{2}), str2func(names{3})};
end

function a = crossdyn_engine_fd__(q, qd, tau)
  global crossdyn_engine__
  e = crossdyn_engine__; n = e.n;
  M = reshape(crossdyn_call__(e.f{1}, e.nargs(1), q, qd, e.p, 1), n, n);
  c = crossdyn_call__(e.f{2}, e.nargs(2), q, qd, e.p, 2);
  if e.ckind == 1, c = reshape(c, n, n) * qd; else, c = c(:); end
  g = crossdyn_call__(e.f{3}, e.nargs(3), q, qd, e.p, 3);
  a = M \ (tau - c - g(:) - e.p.b .* qd - e.p.fc .* sign(qd));
end

function crossdyn_engine_step__(q, qd, tau, dt)
  % one RK4 step with the torque held, as crossdyn.analytic.integrators.rk4_step
  q = q(:); qd = qd(:); tau = tau(:);
  try
    k1q = qd; k1v = crossdyn_engine_fd__(q, qd, tau);
    k2q = qd + 0.5*dt*k1v; k2v = crossdyn_engine_fd__(q + 0.5*dt*k1q, k2q, tau);
    k3q = qd + 0.5*dt*k2v; k3v = crossdyn_engine_fd__(q + 0.5*dt*k2q, k3q, tau);
    k4q = qd + dt*k3v; k4v = crossdyn_engine_fd__(q + dt*k3q, k4q, tau);
    q = q + dt/6.0*(k1q + 2*k2q + 2*k3q + k4q);
    qd = qd + dt/6.0*(k1v + 2*k2v + 2*k3v + k4v);
  catch err
    crossdyn_report__(err, 0, 0, 0);
    return;
  end
  printf('@@OK@@ %s\n', sprintf('%.17g ', [q; qd]));
end

function crossdyn_batch__(inpath, outpath, names, nargs, ckind, zdir, vectorise)
  fid = fopen(inpath, 'r'); hd = fread(fid, 4, 'double'); n = hd(1); N = hd(2); S = hd(3); np = 7*n + 3;
  Q = reshape(fread(fid, n*N, 'double'), n, N);
  QD = reshape(fread(fid, n*N, 'double'), n, N);
  P = reshape(fread(fid, np*S, 'double'), np, S);
  fclose(fid);
  outs = {[], [], []};
  how = '';
  for role = 1:3
    if isempty(names{role}), how = [how '-']; continue; end
    f = str2func(names{role});
    takes_p = nargs(role) == (2 + (role == 2));
    ok = false;
    if vectorise
      [O, ckind, ok] = crossdyn_vec__(f, role, takes_p, Q, QD, P, n, ckind, zdir);
    end
    if ok
      how = [how 'v'];
    else
      [O, ckind, ok] = crossdyn_loop__(f, role, takes_p, Q, QD, P, n, ckind);
      if ~ok, return; end
      how = [how 'l'];
    end
    if role == 2 && rows(O) < n*n, O(n*n, 1, 1) = 0; end
    outs{role} = O;
  end
  fid = fopen(outpath, 'w');
  fwrite(fid, [ckind; outs{1}(:); outs{2}(:); outs{3}(:)], 'double');
  fclose(fid);
  printf('@@OK@@ %d %s\n', ckind, how);
end
"""

# A batch value: an r x c matrix per state, stored r x c x N.  The user's function runs ONCE with q (and
# the parameters that differ between sets) as batch values; every operator works state by state.  Anything
# it does not support (a comparison in an if, a function it does not overload, assigning into a plain
# matrix other than zeros(...)) raises an error and the loop takes over, and the first and last states of
# the first and last sets are always recomputed one at a time and must agree.
_VALUE_CLASS = r"""
classdef crossdyn_value__
  properties
    v
  end
  methods
    function o = crossdyn_value__(v)
      o.v = v;
    end
    function r = plus(a, b), r = crossdyn_value__(crossdyn_v__(a) + crossdyn_v__(b)); end
    function r = minus(a, b), r = crossdyn_value__(crossdyn_v__(a) - crossdyn_v__(b)); end
    function r = times(a, b), r = crossdyn_value__(crossdyn_v__(a) .* crossdyn_v__(b)); end
    function r = rdivide(a, b), r = crossdyn_value__(crossdyn_v__(a) ./ crossdyn_v__(b)); end
    function r = ldivide(a, b), r = crossdyn_value__(crossdyn_v__(a) .\ crossdyn_v__(b)); end
    function r = power(a, b), r = crossdyn_value__(crossdyn_v__(a) .^ crossdyn_v__(b)); end
    function r = uminus(a), r = crossdyn_value__(-crossdyn_v__(a)); end
    function r = uplus(a), r = a; end
    function r = mtimes(a, b)
      A = crossdyn_v__(a); B = crossdyn_v__(b);
      if (size(A, 1) == 1 && size(A, 2) == 1) || (size(B, 1) == 1 && size(B, 2) == 1)
        r = crossdyn_value__(A .* B);
      elseif size(A, 2) == size(B, 1)
        r = 0;
        for k = 1:size(A, 2)
          r = r + A(:, k, :) .* B(k, :, :);
        end
        r = crossdyn_value__(r);
      else
        error('crossdyn:batch', 'mtimes: nonconformant');
      end
    end
    function r = mrdivide(a, b)
      B = crossdyn_v__(b);
      if size(B, 1) ~= 1 || size(B, 2) ~= 1, error('crossdyn:batch', 'mrdivide'); end
      r = crossdyn_value__(crossdyn_v__(a) ./ B);
    end
    function r = mpower(a, b)
      A = crossdyn_v__(a); B = crossdyn_v__(b);
      if size(A, 1) ~= 1 || size(A, 2) ~= 1 || size(B, 1) ~= 1 || size(B, 2) ~= 1, error('crossdyn:batch', 'mpower'); end
      r = crossdyn_value__(A .^ B);
    end
    function r = transpose(a), r = crossdyn_value__(permute(crossdyn_v__(a), [2 1 3])); end
    function r = ctranspose(a), r = crossdyn_value__(permute(crossdyn_v__(a), [2 1 3])); end
    function r = horzcat(varargin), r = crossdyn_value__(cat(2, crossdyn_expand__(varargin){:})); end
    function r = vertcat(varargin), r = crossdyn_value__(cat(1, crossdyn_expand__(varargin){:})); end
    function r = cos(a), r = crossdyn_value__(cos(a.v)); end
    function r = sin(a), r = crossdyn_value__(sin(a.v)); end
    function r = tan(a), r = crossdyn_value__(tan(a.v)); end
    function r = sec(a), r = crossdyn_value__(sec(a.v)); end
    function r = sqrt(a), r = crossdyn_value__(sqrt(a.v)); end
    function r = exp(a), r = crossdyn_value__(exp(a.v)); end
    function r = abs(a), r = crossdyn_value__(abs(a.v)); end
    function r = sign(a), r = crossdyn_value__(sign(a.v)); end
    function r = atan2(a, b), r = crossdyn_value__(atan2(crossdyn_v__(a) .* ones(size(crossdyn_v__(b))), crossdyn_v__(b) .* ones(size(crossdyn_v__(a))))); end
    function r = sum(a, d)
      x = a.v;
      if nargin < 2
        if size(x, 1) == 1, d = 2; else, d = 1; end
      end
      r = crossdyn_value__(sum(x, d));
    end
    function r = reshape(a, varargin)
      % per state, column-major, as MATLAB's reshape (matlabFunction writes M = reshape([...], [n, n]))
      if numel(varargin) == 1, sz = varargin{1}; else, sz = [varargin{:}]; end
      if numel(sz) ~= 2, error('crossdyn:batch', 'reshape'); end
      x = a.v;
      r = crossdyn_value__(reshape(x, sz(1), sz(2), size(x, 3)));
    end
    function r = cumsum(a, d)
      x = a.v;
      if nargin < 2
        if size(x, 1) == 1, d = 2; else, d = 1; end
      end
      r = crossdyn_value__(cumsum(x, d));
    end
    function r = subsref(a, s)
      if strcmp(s(1).type, '.') && strcmp(s(1).subs, 'v')
        r = builtin('subsref', a, s(1));
      elseif strcmp(s(1).type, '()')
        x = builtin('subsref', a, struct('type', '.', 'subs', 'v'));
        idx = s(1).subs;
        N = size(x, 3);
        if numel(idx) == 1
          flat = reshape(x, size(x, 1) * size(x, 2), N);
          y = flat(idx{1}, :);
          if size(x, 1) == 1, r = crossdyn_value__(reshape(y, 1, [], N)); else, r = crossdyn_value__(reshape(y, [], 1, N)); end
        elseif numel(idx) == 2
          r = crossdyn_value__(x(idx{1}, idx{2}, :));
        else
          error('crossdyn:batch', 'subsref');
        end
      else
        error('crossdyn:batch', 'subsref');
      end
      if numel(s) > 1, r = subsref(r, s(2:end)); end
    end
    function a = subsasgn(a, s, b)
      if ~strcmp(s(1).type, '()') || numel(s) > 1, error('crossdyn:batch', 'subsasgn'); end
      x = a.v; B = crossdyn_v__(b);
      N = max(size(x, 3), size(B, 3));
      if size(x, 3) < N, x = x .* ones(1, 1, N); end
      idx = s(1).subs;
      if numel(idx) == 1
        r = size(x, 1); c = size(x, 2);
        flat = reshape(x, r * c, N);
        flat(idx{1}, :) = reshape(B, [], size(B, 3)) .* ones(1, N);
        a.v = reshape(flat, r, c, N);
      elseif numel(idx) == 2
        x(idx{1}, idx{2}, :) = B .* ones(1, 1, N);
        a.v = x;
      else
        error('crossdyn:batch', 'subsasgn');
      end
    end
    function r = size(a, k)
      sz = [size(a.v, 1) size(a.v, 2)];
      if nargin > 1, r = sz(k); else, r = sz; end
    end
    function r = numel(a, varargin), r = size(a.v, 1) * size(a.v, 2); end
    function r = length(a), r = max(size(a.v, 1), size(a.v, 2)); end
    function r = rows(a), r = size(a.v, 1); end
    function r = columns(a), r = size(a.v, 2); end
    function r = ndims(a), r = 2; end
    function r = isempty(a), r = isempty(a.v); end
    function r = isscalar(a), r = size(a.v, 1) == 1 && size(a.v, 2) == 1; end
    function r = isvector(a), r = size(a.v, 1) == 1 || size(a.v, 2) == 1; end
    function r = iscolumn(a), r = size(a.v, 2) == 1; end
    function r = isrow(a), r = size(a.v, 1) == 1; end
    function r = isnumeric(a), r = true; end
    function r = isreal(a), r = isreal(a.v); end
    function r = end(a, k, n)
      sz = [size(a.v, 1) size(a.v, 2)];
      if n == 1, r = prod(sz); else, r = sz(k); end
    end
  end
end
function x = crossdyn_v__(a)
  if isa(a, 'crossdyn_value__'), x = builtin('subsref', a, struct('type', '.', 'subs', 'v')); else, x = a; end
end
function c = crossdyn_expand__(args)
  N = 1;
  for k = 1:numel(args)
    if isa(args{k}, 'crossdyn_value__'), N = size(crossdyn_v__(args{k}), 3); end
  end
  c = cell(size(args));
  for k = 1:numel(args)
    x = crossdyn_v__(args{k});
    if size(x, 3) ~= N, x = x .* ones(1, 1, N); end
    c{k} = x;
  end
end
"""

# zeros(...) inside the user's function returns a batch of zeros while a batch call runs (so that
# `M = zeros(3); M(1,1) = ...` works); everywhere else it is Octave's own.
_ZEROS = r"""
function z = zeros(varargin)
  global crossdyn_batch_n__
  z = builtin('zeros', varargin{:});
  if ~isempty(crossdyn_batch_n__) && crossdyn_batch_n__ > 0 && (nargin == 0 || ~ischar(varargin{end}))
    z = crossdyn_value__(z .* ones(1, 1, crossdyn_batch_n__));
  end
end
"""

VECTORISE_MIN = 64
"""Batches smaller than this (states x sets) are evaluated one call at a time (the batch value's
operator overhead, ~0.1 ms each, only pays off over many states)."""


def _user_file_error():
    return UserFileError


def is_matlab_path(path: str | Path) -> bool:
    """True for a ``.m`` file, or a folder holding ``.m`` files and no ``.py`` file."""
    path = Path(path)
    if path.suffix.lower() == ".m":
        return True
    if path.is_dir():
        try:
            names = [p.suffix.lower() for p in path.iterdir() if p.is_file()]
        except OSError:
            return False
        return ".m" in names and ".py" not in names
    return False


def _starts_with_function(text: str) -> bool:
    """True when the first statement of an .m file is a ``function`` definition (a function file)."""
    in_block = False
    for line in text.splitlines():
        s = line.strip()
        if in_block:
            if s in ("%}", "#}"):
                in_block = False
            continue
        if s in ("%{", "#{"):
            in_block = True
            continue
        if not s or s[0] in "%#":
            continue
        return re.match(r"function\b", s) is not None
    return False


def _with_armature(P, n: int) -> np.ndarray:
    """Parameter rows (S, 7n + 3) [L, m, Lc, J, b, fc, Ia, g]; rows of 6n + 3 (no Ia) get Ia = 0."""
    P = np.atleast_2d(np.asarray(P, float))
    if P.shape[-1] == 6 * n + 3:
        return np.concatenate([P[:, : 6 * n], np.zeros((len(P), n)), P[:, 6 * n:]], axis=1)
    return P.reshape(-1, 7 * n + 3)


def _mat(x) -> str:
    """A float vector as an exact Octave column literal (17 significant digits round-trip)."""
    return "[" + "; ".join(repr(float(v)).replace("inf", "Inf").replace("nan", "NaN")
                           for v in np.asarray(x, float).ravel()) + "]"


def _vec(x) -> str:
    return "[" + ", ".join(f"{v:.6g}" for v in np.asarray(x, float).ravel()) + "]"


class OctaveModel:
    """The user's MATLAB functions, run in one Octave session.

    ``functions``: role → (name, takes_p).  ``c_kind`` ("matrix" | "vector") is known after the
    first evaluation of C.  :meth:`evaluate` runs a whole batch in one Octave call.
    """

    language = "matlab"

    def __init__(self, path: str | Path, n: int, names: dict[str, str] | None = None, *,
                 timeout: float | None = None):
        UserFileError = _user_file_error()
        self.path = Path(path)
        self.n = n
        # an explicit timeout is a hard limit per call; by default a big batch gets more time when one
        # evaluation is slow (a file the batch values cannot run, ~1 ms a state), see _batch_timeout
        self.timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        self.scale_timeout = timeout is None
        self._state_cost: float | None = None
        self.c_kind: str | None = None
        self.printed: list[str] = []
        if not self.path.exists():
            raise UserFileError(f"{self.path}: no such file or folder")
        try:
            self.session = OctaveSession(timeout=self.timeout)
        except OctaveUnavailable as e:
            raise UserFileError(f"{self.path}: cannot check a MATLAB file here: {e}") from None
        except (OctaveTimeout, OctaveDied) as e:
            raise UserFileError(f"{self.path}: Octave did not start: {e}") from None
        self._source_map: dict[str, Path] = {}
        self._load()
        self.functions = self._resolve(names or {})

    # ------------------------------------------------------------------ loading
    def _call(self, code: str, timeout: float | None = None, what: str = "") -> list[str]:
        UserFileError = _user_file_error()
        try:
            return self.session.call(code, timeout)
        except OctaveTimeout:
            t = self.timeout if timeout is None else timeout
            e = UserFileError(f"{self.path}: {what or 'Octave'} did not return within {t:g} s and was stopped "
                              "(an endless loop? --timeout sets the limit)")
            e.timed_out = True
            raise e from None
        except OctaveDied as e:
            raise UserFileError(f"{self.path}: {what or 'Octave'}: {e}") from None

    def _load(self) -> None:
        UserFileError = _user_file_error()
        tmp = Path(self.session.tmpdir)
        helpers = tmp / "crossdyn_helpers__.m"
        helpers.write_text(_HELPERS)
        (tmp / "crossdyn_value__.m").write_text(_VALUE_CLASS)
        self._zdir = tmp / "batch_zeros"
        self._zdir.mkdir()
        (self._zdir / "zeros.m").write_text(_ZEROS)
        self.vectorise = True
        self.last_paths = ""
        self._call(f"source({octave_string(helpers)});", what="loading crossdyn's helpers")
        if self.path.is_dir():
            files = sorted(p.name for p in self.path.glob("*.m"))
            if not files:
                raise UserFileError(f"{self.path}: the folder holds no .m files (one function per file: M.m, C.m, G.m)")
            for name in files:      # a parse error met at call time ends Octave: find it here, with its line
                f = self.path.resolve() / name
                out = self._call(f"try\n if exist('__parse_file__'), __parse_file__({octave_string(f)}); end\n"
                                 f"catch err\n crossdyn_report__(err, 0, 0, 0);\nend", what="reading the folder")
                err = self._parse_error(out) if any(l.startswith("@@ERR@@") for l in out) else None
                if err is not None:
                    text = err["full"]
                    m = re.search(r"near line (\d+)", text)
                    detail = " ".join(l.strip() for l in text.splitlines()[1:] if l.strip()
                                      and not l.strip().startswith(">>>") and set(l.strip()) != {"^"})
                    raise UserFileError(f"{self.path / name}: Octave could not parse the file"
                                        + (f": line {m.group(1)}" if m else "") + (f": {detail}" if detail else ""),
                                        user_traceback=text)
            code = f"addpath({octave_string(self.path.resolve())});"
            out = self._call(code, what="adding the folder")
            self.printed += out
            return
        if self.path.suffix.lower() != ".m":
            raise UserFileError(f"{self.path}: not a MATLAB file (expected a .m file or a folder of them)")
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            raise UserFileError(f"{self.path}: cannot read: {e}") from None
        source = self.path.resolve()
        if _starts_with_function(text):
            # a function file: make it a script of local functions, on the same line numbers
            copy = Path(self.session.tmpdir) / ("crossdyn_user__" + re.sub(r"\W", "_", self.path.stem) + ".m")
            copy.write_text("1; " + text)
            self._source_map[str(copy)] = self.path
            source = copy
        # __parse_file__ first: its error carries the parse error's line and text (source's says only "source")
        code = (f"try\n if exist('__parse_file__'), __parse_file__({octave_string(source)}); end\n"
                f" source({octave_string(source)});\n printf('@@LOADED@@\\n');\n"
                f"catch err\n crossdyn_report__(err, 0, 0, 0);\nend")
        out = self._call(code, what="loading the file")
        if "@@LOADED@@" not in out:
            err = self._parse_error(out)
            start = next((k for k, l in enumerate(out) if "parse error" in l and not l.startswith("@@")), None)
            if start is None and "parse error" in err["full"]:
                out, start = err["full"].splitlines(), 0
            if start is not None:           # Octave prints the parse error; the exception only says "source"
                block = [l for l in out[start:] if not l.startswith("@@")]
                text = "\n".join(block).strip()
                for tmp, real in self._source_map.items():
                    text = text.replace(tmp, str(real))
                m = re.search(r"near line (\d+)(?:, column \d+)? of file (.+?)$", block[0].strip())
                where = f"{self.path}: line {m.group(1)}" if m else ""
                detail = " ".join(l.strip() for l in block[1:] if l.strip() and not l.strip().startswith(">>>")
                                  and set(l.strip()) != {"^"})
                raise UserFileError(f"{self.path}: Octave could not parse the file: {where or block[0].strip()}"
                                    + (f": {detail}" if detail else ""), user_traceback=text)
            raise UserFileError(f"{self.path}: Octave could not run the file: {err['message']}"
                                + (f" ({err['at']})" if err.get("at") else ""), user_traceback=err["trace"])
        self.printed += [l for l in out if l != "@@LOADED@@"]

    def _resolve(self, names: dict[str, str]) -> dict[str, tuple[str, bool]]:
        UserFileError = _user_file_error()
        wanted = sorted({c for cands in ROLE_NAMES.values() for c in cands} | set(names.values()))
        cells = "{" + ", ".join(octave_string(w) for w in wanted) + "}"
        out = self._call(f"crossdyn_probe__({cells});", what="looking up your functions")
        info = {}
        for line in out:
            if line.startswith("@@FN@@ "):
                _, name, e, a = line.split()
                info[name] = (int(e), int(a))
        found: dict[str, tuple[str, bool]] = {}
        for role, candidates in ROLE_NAMES.items():
            if role in names:
                name = names[role]
                e, _ = info.get(name, (0, 0))
                if e not in (2, 103):
                    raise UserFileError(f"{self.path}: --names maps {role} to {name!r}, which the file does not "
                                        "define as a function", function=name)
                choice = name
            else:
                choice = next((c for c in candidates if info.get(c, (0, 0))[0] in (2, 103)), None)
            if choice is None:
                continue
            nargs = info[choice][1]
            full = 3 if role == "C" else 2
            if nargs >= 0 and nargs < full - 1:
                raise UserFileError(f"{self.path}: {choice} takes {nargs} argument{'s' if nargs != 1 else ''}; "
                                    f"expected {choice}{ROLE_ARGS[role]} or {choice}{ROLE_ARGS_NO_P[role]}",
                                    function=choice)
            found[role] = (choice, nargs < 0 or nargs >= full)
        if not found:
            raise UserFileError(f"{self.path}: defines none of M / mass_matrix, C / coriolis / bias, G / gravity as "
                                "a function (use --names M=...,C=...,G=... for other names; a script file needs "
                                "'1;' before its functions)")
        return found

    # ------------------------------------------------------------------ description
    def has(self, role: str) -> bool:
        return role in self.functions

    def name(self, role: str) -> str:
        return self.functions[role][0]

    def takes_p(self, role: str) -> bool:
        return self.functions[role][1]

    def signature(self, role: str) -> str:
        name, takes_p = self.functions[role]
        return name + (ROLE_ARGS if takes_p else ROLE_ARGS_NO_P)[role]

    def describe(self) -> dict[str, str | None]:
        return {role: (self.signature(role) if role in self.functions else None) for role in ROLE_NAMES}

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, Q, QD, P, roles=("M", "C", "G"), labels=None, timeout: float | None = None) -> dict:
        """Every state × every parameter set in one Octave call.

        ``Q``, ``QD``: (N, n); ``P``: (S, 7n + 3) rows [L, m, Lc, J, b, fc, Ia, gx, gy, gz]
        (:func:`crossdyn.models.equations.param_rows`); (S, 6n + 3) rows without Ia mean no armature.
        Returns role → array: "M" (S, N, n, n), "C" (S, N, n, n) or (S, N, n) per :attr:`c_kind`,
        "G" (S, N, n).  ``labels[s]`` describes parameter set s in error messages.
        """
        Q = np.ascontiguousarray(Q, float).reshape(-1, self.n)
        QD = np.zeros_like(Q) if QD is None else np.ascontiguousarray(QD, float).reshape(-1, self.n)
        P = _with_armature(np.ascontiguousarray(P, float), self.n)
        roles = [r for r in ("M", "C", "G") if r in roles and self.has(r)]
        n, N, S = self.n, len(Q), len(P)
        if not roles or N == 0 or S == 0:
            return {}
        tmp = Path(self.session.tmpdir)
        inp, outp = tmp / "in.bin", tmp / "out.bin"
        header = np.array([n, N, S, 1.0])
        np.concatenate([header, Q.ravel(), QD.ravel(), P.ravel()]).astype("<f8").tofile(inp)
        names = "{" + ", ".join(octave_string(self.name(r) if r in roles else "") for r in ("M", "C", "G")) + "}"
        nargs = " ".join(str((3 if r == "C" else 2) if (not self.has(r) or self.takes_p(r)) else (2 if r == "C" else 1))
                         for r in ("M", "C", "G"))
        ckind = {None: 0, "matrix": 1, "vector": 2}[self.c_kind]
        try:
            outp.unlink()
        except FileNotFoundError:
            pass
        vec = int(self.vectorise and N * S >= VECTORISE_MIN)
        if timeout is None:
            timeout = self._batch_timeout(Q, QD, P, roles, N * S, labels)
        lines = self._call(f"crossdyn_batch__({octave_string(inp)}, {octave_string(outp)}, {names}, [{nargs}], {ckind}, "
                           f"{octave_string(self._zdir)}, {vec});", timeout, what="your functions")
        ok = [l for l in lines if l.startswith("@@OK@@")]
        if not ok:
            self._raise_call_error(lines, Q, QD, labels)
        self.printed += [l for l in lines if not l.startswith("@@")]
        ck = int(ok[-1].split()[1])
        self.last_paths = ok[-1].split()[2]        # per role M, C, G: v (batch value), l (loop), - (absent)
        if ck:
            self.c_kind = {1: "matrix", 2: "vector"}[ck]
        data = np.fromfile(outp, "<f8")[1:]
        out = {}
        pos = 0
        for r, size in (("M", n * n), ("C", n * n), ("G", n)):
            if r not in roles:
                continue
            block = data[pos: pos + size * N * S].reshape(S, N, size)
            pos += size * N * S
            if r == "G":
                out[r] = block
            elif r == "C" and self.c_kind == "vector":
                out[r] = block[..., :n]
            else:
                out[r] = np.swapaxes(block.reshape(S, N, n, n), -1, -2)    # Octave is column-major
        return out

    def _batch_timeout(self, Q, QD, P, roles, count: int, labels=None) -> float:
        """The limit for a batch of ``count`` states x sets: the timeout, or (default timeout only) 10 x the
        cost of one state measured inside Octave x the count, if larger: slow but finite files are not stopped."""
        if not self.scale_timeout or count < VECTORISE_MIN:
            return self.timeout
        if self._state_cost is None:
            for _ in range(2):          # the second call: the first one includes Octave parsing the functions
                self._one(tuple(roles), Q[0], QD[0], P[0:1], labels[0] if labels else None, row=True)
        return max(self.timeout, 10.0 * self._state_cost * count)

    # ------------------------------------------------------------------ one state (engines, integration)
    @staticmethod
    def _row(p) -> np.ndarray:
        """[L, m, Lc, J, b, fc, Ia, gx, gy, gz] of crossdyn's ``p`` object (UserParams)."""
        g = (tuple(p.gravity) + (0.0,) * 3)[:3]
        return np.concatenate([p.L, p.m, p.Lc, p.J, p.b, p.fc, p.armature, g])[None, :]

    def _one(self, roles, q, qd, p, where, row: bool = False) -> dict:
        """M, C, G at one state: numbers travel in the command and the printed reply (no files)."""
        n = self.n
        q = np.asarray(q, float).reshape(n)
        qd = np.zeros(n) if qd is None else np.asarray(qd, float).reshape(n)
        names = "{" + ", ".join(octave_string(self.name(r) if self.has(r) and r in roles else "")
                                for r in ("M", "C", "G")) + "}"
        prow = _with_armature(np.asarray(p, float), n)[0] if row else self._row(p)[0]
        lines = self._call(f"crossdyn_one__({_mat(q)}, {_mat(qd)}, {_mat(prow)}, {names}, "
                           f"[{self._nargs()}], {self._ckind()});", what="your functions")
        if not any(l.startswith("@@OK@@") for l in lines):
            label = where.label if hasattr(where, "label") else where
            self._raise_call_error(lines, q[None, :], qd[None, :], None if label is None else [str(label)])
        okline = next(l for l in lines if l.startswith("@@OK@@")).split()
        ck = int(okline[1])
        self._state_cost = float(okline[3])           # seconds Octave spent on this state's functions
        if ck:
            self.c_kind = {1: "matrix", 2: "vector"}[ck]
        self.printed += [l for l in lines if not l.startswith("@@")]
        out = {}
        for line in lines:
            if line.startswith("@@V@@ "):
                parts = line.split()
                role = ("M", "C", "G")[int(parts[1]) - 1]
                if len(parts) > 2:
                    v = np.array([float(x) for x in parts[2:]])
                    if role == "M" or (role == "C" and self.c_kind == "matrix"):
                        v = v.reshape(n, n).T                  # Octave is column-major
                    out[role] = v
        return out

    def _nargs(self) -> str:
        return " ".join(str((3 if r == "C" else 2) if (not self.has(r) or self.takes_p(r)) else (2 if r == "C" else 1))
                        for r in ("M", "C", "G"))

    def _ckind(self) -> int:
        return {None: 0, "matrix": 1, "vector": 2}[self.c_kind]

    # ------------------------------------------------------------------ an engine's step
    def engine_init(self, p) -> None:
        """Hold the parameters and functions in Octave for :meth:`engine_step` (needs M, C and G)."""
        if self.c_kind is None:
            self._one(("C",), np.zeros(self.n), np.zeros(self.n), p, None)     # learn C's form
        names = "{" + ", ".join(octave_string(self.name(r)) for r in ("M", "C", "G")) + "}"
        self._call(f"crossdyn_engine_init__({_mat(self._row(p)[0])}, {names}, [{self._nargs()}], {self._ckind()});")

    def engine_step(self, q, qd, tau, dt: float, label: str = "") -> tuple[np.ndarray, np.ndarray]:
        """One RK4 step of M q̈ + C q̇ + G + b q̇ + f_c sign(q̇) = τ inside Octave (one round trip)."""
        lines = self._call(f"crossdyn_engine_step__({_mat(q)}, {_mat(qd)}, {_mat(tau)}, {dt!r});",
                           what="your functions")
        ok = next((l for l in lines if l.startswith("@@OK@@ ")), None)
        if ok is None:
            err = self._parse_error(lines)
            UserFileError = _user_file_error()
            at = f" ({err['at']})" if err["at"] else ""
            raise UserFileError(f"{self.path}: an Octave error{at} while stepping: {err['message']}",
                                where=f"from q = {_vec(q)}, qd = {_vec(qd)}, tau = {_vec(tau)} {label}".rstrip(),
                                user_traceback=err["trace"])
        v = np.array([float(x) for x in ok.split()[1:]])
        return v[: self.n], v[self.n:]

    def M(self, q, p, ps=None) -> np.ndarray:
        return self._one(("M",), q, None, p, ps)["M"]

    def G(self, q, p, ps=None) -> np.ndarray:
        return self._one(("G",), q, None, p, ps)["G"]

    def C(self, q, qd, p, ps=None) -> tuple[str, np.ndarray]:
        return self.c_kind, self._one(("C",), q, qd, p, ps)["C"]

    def Cqd(self, q, qd, p, ps=None) -> np.ndarray:
        kind, a = self.C(q, qd, p, ps)
        return a @ np.asarray(qd, float) if kind == "matrix" else a

    def parts(self, q, qd, p, ps=None) -> tuple:
        """(M, C q̇, G) at one state in one Octave call (None for a function the file lacks)."""
        out = self._one(("M", "C", "G"), q, qd, p, ps)
        c = out.get("C")
        if c is not None and self.c_kind == "matrix":
            c = c @ np.asarray(qd, float)
        return out.get("M"), c, out.get("G")

    def free_swing(self, q0, qd0, p, dt: float, steps: int, every: int = 5):
        """RK4 free swing (τ = 0) of M q̈ + C q̇ + G = 0 from (q0, q̇0) in ONE Octave call, the same steps as
        :func:`crossdyn.analytic.integrators.rk4_step`.  Returns (status "ok" | "diverged" | "singular",
        step of failure, q at the recorded steps (R, n), T = ½ q̇ᵀ M q̇ there (R,), T at the start)."""
        n = self.n
        tmp = Path(self.session.tmpdir)
        inp, outp = tmp / "in.bin", tmp / "out.bin"
        np.concatenate([[n, 1, 1, 1], np.asarray(q0, float), np.asarray(qd0, float),
                        self._row(p)[0]]).astype("<f8").tofile(inp)
        names = "{" + ", ".join(octave_string(self.name(r)) for r in ("M", "C", "G")) + "}"
        nargs = " ".join(str((3 if r == "C" else 2) if self.takes_p(r) else (2 if r == "C" else 1))
                         for r in ("M", "C", "G"))
        ckind = {None: 0, "matrix": 1, "vector": 2}[self.c_kind]
        timeout = self.timeout                      # 4 stages a step, M again every `every` steps
        if self.scale_timeout and self._state_cost is not None:
            timeout = max(timeout, 10.0 * self._state_cost * steps * (4 + 1 / every))
        lines = self._call(f"crossdyn_free__({octave_string(inp)}, {octave_string(outp)}, {names}, [{nargs}], "
                           f"{ckind}, {dt!r}, {int(steps)}, {int(every)});", timeout, what="your functions (free swing)")
        if not any(l.startswith("@@OK@@") for l in lines):
            self._raise_call_error(lines, np.asarray(q0, float)[None, :], np.asarray(qd0, float)[None, :],
                                   ["the arm's own parameters, in the energy check (free motion)"], free=True)
        self.printed += [l for l in lines if not l.startswith("@@")]
        data = np.fromfile(outp, "<f8")
        status, k, r, T0 = int(data[0]), int(data[1]), int(data[2]), float(data[3])
        rec = data[4:].reshape(-1, n + 1)[:r]
        return {0: "ok", 1: "diverged", 2: "singular"}[status], k, rec[:, :n], rec[:, n], T0

    # ------------------------------------------------------------------ errors
    def _user_file(self, file: str) -> str | None:
        if not file:
            return None
        if file in self._source_map:
            return str(self._source_map[file])
        try:
            fp = Path(file).resolve()
        except (OSError, ValueError):
            return None
        root = self.path.resolve()
        if fp == root or (root.is_dir() and root in fp.parents):
            return str(self.path / fp.relative_to(root)) if root.is_dir() else str(self.path)
        return None

    def _parse_error(self, lines: list[str]) -> dict:
        role = s = i = 0
        ident, msg, frames = "", [], []
        for line in lines:
            if line.startswith("@@ERR@@ "):
                role, s, i = (int(x) for x in line.split()[1:4])
            elif line.startswith("@@ID@@"):
                ident = line[7:].strip()
            elif line.startswith("@@MSG@@"):
                msg.append(line[8:])
            elif line.startswith("@@AT@@ "):
                ln, col, name, file = line[7:].split("|", 3)
                frames.append((int(ln), int(col), name, file))
        message = "\n".join(m for m in msg).strip()
        # parse errors name the file in the message: map a temporary copy back to the user's path
        for tmp, real in self._source_map.items():
            message = message.replace(tmp, str(real))
        user_frames = [(ln, col, name, self._user_file(file)) for ln, col, name, file in frames
                       if self._user_file(file)]
        trace = ""
        if user_frames:
            trace = "Octave stack (frames in your file only, most recent first):\n" + "".join(
                f"  {f}: line {ln}, column {col}, in {name}\n" for ln, col, name, f in user_frames)
        trace += f"error: {message}"
        at = f"{user_frames[0][3]}: line {user_frames[0][0]}" if user_frames else ""
        if not at:
            m = re.search(r"near line (\d+)(?:, column \d+)? of file (\S+)", message)
            if m:
                at = f"{m.group(2)}: line {m.group(1)}"
        return {"role": role, "set": s, "state": i, "id": ident, "message": message.splitlines()[0] if message
                else "(no message)", "full": message, "trace": trace, "at": at, "frames": user_frames}

    def _raise_call_error(self, lines, Q, QD, labels, free: bool = False):
        UserFileError = _user_file_error()
        err = self._parse_error(lines)
        if not err["role"]:
            tail = "; ".join(l for l in lines[-5:] if l.strip())
            raise UserFileError(f"{self.path}: Octave failed: {tail or 'no output'}")
        role = {1: "M", 2: "C", 3: "G"}[err["role"]]
        name = self.name(role)
        sig = self.signature(role)
        k, i = (0, 0) if free else (err["set"] - 1, err["state"] - 1)
        where = (("during a free swing from " if free else "at ") + f"q = {_vec(Q[i])}"
                 + (f", qd = {_vec(QD[i])}" if role == "C" or free else ""))
        if labels is not None and 0 <= k < len(labels):
            where += f", with {labels[k]}"
        ident, msg = err["id"], err["full"]
        n = self.n
        if ident == "crossdyn:shape":
            expected = {"M": f"({n}, {n})", "C": f"({n}, {n}) for the matrix C or ({n},) for C qd",
                        "G": f"({n},)"}[role]
            shape = msg.strip("[]").replace(" ", ", ")
            raise UserFileError(f"{sig} returned size [{msg.strip('[]')}] ({shape.count(',') + 1}-D); expected "
                                f"{expected} for this {n}-link arm", function=name, where=where)
        if ident == "crossdyn:type":
            raise UserFileError(f"{sig} returned a {msg} that is not an array of real numbers", function=name,
                                where=where)
        if ident == "crossdyn:complex":
            raise UserFileError(f"{sig} returned complex values", function=name, where=where)
        if ident == "crossdyn:ckind":
            now, before = ("matrix" if msg.split()[0] == "1" else "vector"), ("matrix" if msg.split()[1] == "1"
                                                                              else "vector")
            raise UserFileError(f"{sig} returned a {now} here but a {before} elsewhere; return either the n x n "
                                "matrix C or the n-vector C qd, always", function=name, where=where)
        at = f" ({err['at']})" if err["at"] else ""
        raise UserFileError(f"{sig} raised an Octave error{at}: {err['message']}", function=name, where=where,
                            user_traceback=err["trace"])

    def close(self) -> None:
        self.session.close()

    def __del__(self):
        s = getattr(self, "session", None)
        if s is not None:
            s.close()
