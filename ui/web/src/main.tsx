import React from 'react';
import ReactDOM from 'react-dom/client';
import './styles.css';
import { App } from './App';

const root = document.getElementById('root');
if (root) {
  root.classList.add('pf-v6-u-h-100vh');
  ReactDOM.createRoot(root).render(
    <React.StrictMode>
      <App />
    </React.StrictMode>,
  );
}
