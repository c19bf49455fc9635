% crossdyn's Octave helpers (sourced once per session by crossdyn.equations.octave_model):
% the user's p struct, the batch loop, error reports, the free swing and an engine's RK4 step.
1;
function crossdyn_layout__(names)
  % a spatial arm's parameter names (issue 27): p.(names{k}) = v(k); {} for the planar layout below
  global crossdyn_names__
  crossdyn_names__ = names;
end

function p = crossdyn_params__(v, n)
  % v = [L; m; Lc; J; b; fc; Ia; gx; gy; gz] (7n + 3 numbers), or one number per crossdyn_layout__ name
  global crossdyn_names__
  if ~isempty(crossdyn_names__)
    p = struct();
    p.n = n;
    for k = 1:numel(crossdyn_names__)
      p.(crossdyn_names__{k}) = v(k);
    end
    return;
  end
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
  global crossdyn_names__
  S = columns(P); NS = N*S;
  p = crossdyn_params__(P(:, 1), n);
  if S == 1, return; end
  if ~isempty(crossdyn_names__)      % a spatial arm's named parameters: one field per row of P
    for k = 1:numel(crossdyn_names__)
      V = P(k, :);
      if all(V == V(1)), continue; end
      p.(crossdyn_names__{k}) = crossdyn_value__(reshape(kron(V, ones(1, N)), 1, 1, NS));
    end
    return;
  end
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
      crossdyn_progress__(names{role}, role, nargs(role));
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
  crossdyn_progress__('', 0, 0);
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

function crossdyn_progress__(name, role, nargs)
  % the call about to run (or '' when none) into the progress file a grader reads when it stops a check
  % (crossdyn.equations.progress: 128 bytes, NUL-padded, written in place)
  global crossdyn_progress_file__
  if isempty(crossdyn_progress_file__), return; end
  text = name;
  if ~isempty(name) && role > 0
    args = {'(q)', '(q, p)'; '(q, qd)', '(q, qd, p)'; '(q)', '(q, p)'};
    text = [name args{role, 1 + (nargs == 2 + (role == 2))}];
  end
  fid = fopen(crossdyn_progress_file__, 'r+');
  if fid < 0, return; end
  b = zeros(1, 128, 'uint8'); t = uint8(text); k = min(128, numel(t)); b(1:k) = t(1:k);
  fwrite(fid, b, 'uint8'); fclose(fid);
end

function crossdyn_each__(inpath, outpath, name, k)
  % the n-vector name(qd) (k = 1), name(qd, p) (k = 2) or name(q, qd, p) (k = 3) at every state x parameter set,
  % one call each (the user's friction F, crossdyn.checking.friction)
  fid = fopen(inpath, 'r'); hd = fread(fid, 4, 'double'); n = hd(1); N = hd(2); S = hd(3); np = 7*n + 3;
  Q = reshape(fread(fid, n*N, 'double'), n, N);
  QD = reshape(fread(fid, n*N, 'double'), n, N);
  P = reshape(fread(fid, np*S, 'double'), np, S);
  fclose(fid);
  f = str2func(name); O = zeros(n, N, S); s = 0; i = 0;
  sig = {'(qd)', '(qd, p)', '(q, qd, p)'};
  crossdyn_progress__([name sig{k}], 0, 0);
  try
    for s = 1:S
      p = crossdyn_params__(P(:, s), n);
      for i = 1:N
        if k == 1, out = f(QD(:, i)); elseif k == 2, out = f(QD(:, i), p); else, out = f(Q(:, i), QD(:, i), p); end
        if ~(isnumeric(out) || islogical(out)) || ~isreal(out) || numel(out) ~= n
          error('crossdyn:shape', 'returned %s of size %s; expected %d numbers', class(out), mat2str(size(out)), n);
        end
        O(:, i, s) = double(out(:));
      end
    end
  catch err
    printf('@@EACHERR@@ %d %d %s\n', s, i, regexprep(err.message, '\s+', ' '));
    return;
  end
  crossdyn_progress__('', 0, 0);
  fid = fopen(outpath, 'w'); fwrite(fid, O(:), 'double'); fclose(fid);
  printf('@@OK@@\n');
end

function crossdyn_batch__(inpath, outpath, names, nargs, ckind, zdir, vectorise)
  global crossdyn_names__
  fid = fopen(inpath, 'r'); hd = fread(fid, 4, 'double'); n = hd(1); N = hd(2); S = hd(3); np = 7*n + 3;
  if ~isempty(crossdyn_names__), np = numel(crossdyn_names__); end   % a spatial arm's named parameters
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
    crossdyn_progress__(names{role}, role, nargs(role));
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
  crossdyn_progress__('', 0, 0);
  fid = fopen(outpath, 'w');
  fwrite(fid, [ckind; outs{1}(:); outs{2}(:); outs{3}(:)], 'double');
  fclose(fid);
  printf('@@OK@@ %d %s\n', ckind, how);
end
