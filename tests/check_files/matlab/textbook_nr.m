1;  % Planar nR for any n by the Jacobian method, any in-plane gravity (p.gx, p.gy):
%   M = sum_i m_i Jv_i' Jv_i + J_i Jw_i' Jw_i,  C from the Christoffel symbols,  G_i = -sum_l m_l g . dp_cl/dq_i

function [Jv, dJv] = jacobians(q, p)
  n = numel(q);
  th = cumsum(q);
  e = [cos(th(:)'); sin(th(:)')];
  ep = [-sin(th(:)'); cos(th(:)')];
  Jv = cell(1, n); dJv = cell(1, n);
  for i = 1:n
    lever = [p.L(1:i-1); p.Lc(i)];
    J = zeros(2, n);
    dJ = zeros(2, n, n);
    for j = 1:i
      for l = j:i
        J(:, j) = J(:, j) + lever(l)*ep(:, l);
        for k = 1:l
          dJ(:, j, k) = dJ(:, j, k) - lever(l)*e(:, l);
        end
      end
    end
    Jv{i} = J; dJv{i} = dJ;
  end
end

function out = M(q, p)
  n = numel(q);
  Jv = jacobians(q, p);
  out = zeros(n);
  for i = 1:n
    Jw = [ones(1, i), zeros(1, n - i)];
    out = out + p.m(i)*(Jv{i}'*Jv{i}) + p.J(i)*(Jw'*Jw);
  end
end

function out = C(q, qd, p)
  n = numel(q);
  [Jv, dJv] = jacobians(q, p);
  dM = zeros(n, n, n);
  for i = 1:n
    for k = 1:n
      dM(:, :, k) = dM(:, :, k) + p.m(i)*(dJv{i}(:, :, k)'*Jv{i} + Jv{i}'*dJv{i}(:, :, k));
    end
  end
  out = zeros(n);
  for i = 1:n
    for j = 1:n
      for k = 1:n
        out(i, j) = out(i, j) + 0.5*(dM(i, j, k) + dM(i, k, j) - dM(j, k, i))*qd(k);
      end
    end
  end
end

function out = G(q, p)
  n = numel(q);
  Jv = jacobians(q, p);
  out = zeros(n, 1);
  for l = 1:n
    out = out - p.m(l)*(p.gx*Jv{l}(1, :)' + p.gy*Jv{l}(2, :)');
  end
end
